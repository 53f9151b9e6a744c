export { default as ReplayDialog } from './ReplayDialog.svelte';
export { ReplayChoice } from './replay-choice.svelte.js';
export { replayFields, type ReplayTarget } from './replay-target.js';
