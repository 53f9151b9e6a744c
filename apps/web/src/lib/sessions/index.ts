export { SessionList } from './session-list.svelte.js';
