// The lessons step of a run (PROTOCOL.md §26.4): the notice, its links, and what it says now.
export { default as LessonsNotice } from './LessonsNotice.svelte';
export { lessonHref } from './lesson-link.js';
export { lessonsState, type LessonsState } from './lessons-state.js';
