export { default as CompareView } from './CompareView.svelte';
export { alignChains, chainOf, finalAnswerOf, runTimeMs, sameStep, type AlignedRow, type ChainAlignment } from './chain-alignment.js';
export { compareHref } from './compare-link.js';
