// Find in the chain, its outline and the filter by kind: pure search and layout modules, state classes, components.
export { createMatcher, type MatchOptions, type MatchRange, type TextMatcher } from './text-matcher.js';
export { searchTextOf } from './search-text.js';
export { searchOrder, type SearchEntry, type ScopeLayout } from './search-order.js';
export { FindIndex, type HitRef } from './find-index.js';
export { filterLayout, matchesKind, KIND_FILTERS, type KindFilter } from './kind-filter.js';
export { ChainFind, type FindSurface } from './chain-find.svelte.js';
export { ChainFilter } from './chain-filter.svelte.js';
export { ChainTools } from './chain-tools.svelte.js';
export { CURRENT_HIGHLIGHT, HIT_HIGHLIGHT, hitRangesIn, paintHits, clearHits, stepAtViewport } from './card-highlights.js';
export { default as FindBar } from './FindBar.svelte';
export { default as ChainOutline } from './ChainOutline.svelte';
export { default as ChainToolsStrip } from './ChainToolsStrip.svelte';
