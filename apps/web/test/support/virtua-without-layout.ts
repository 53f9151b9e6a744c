// Stands in for `virtua/svelte` in component tests (see vitest.config.ts and EveryRowVirtualizer.svelte).
export { default as Virtualizer } from './EveryRowVirtualizer.svelte';
