export { default as RulesEditor } from './RulesEditor.svelte';
export { default as BreakpointsEditor } from './BreakpointsEditor.svelte';
export { SessionRulesDraft, type SessionRulesOptions } from './session-rules-draft.svelte.js';
export { buildApprovalPolicy, buildBreakpoints, presetRows, type RuleRow, type BreakpointRow, type RulesPreset } from './rules-policy.js';
export { describeDraftProblem } from './draft-problem-text.js';
