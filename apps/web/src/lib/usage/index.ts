// Tokens, cost and time of model calls (PROTOCOL.md §22): per step and per session.
export { formatSeconds, formatUsd, sessionUsageDetails, sessionUsageLine, stepUsageDetails, stepUsageLine } from './usage-format.js';
export { default as StepUsage } from './StepUsage.svelte';
export { default as SessionUsage } from './SessionUsage.svelte';
