export { default as CorrectionsPage } from './CorrectionsPage.svelte';
export { CorrectionsList, CORRECTIONS_PAGE_SIZE, type CorrectionsPhase, type KnownPerson } from './corrections-list.svelte.js';
export { CorrectionDownloads } from './correction-downloads.svelte.js';
export { actWords, linkedStepOf, personWords, stepHref } from './correction-words.js';
export { dayOfSince, dayOfUntil, filterFromQuery, filterHref, isFiltered, sameFilter, sinceOfDay, untilOfDay, withFilter } from './url-filters.js';
export { correctionsOffered } from './corrections-offered.js';
