import { chainOfScope, type SessionState } from './reducer.js';
import type { Step } from './step.js';
import { DELEGATE_TOOL, DelegateInputSchema, type DelegateInput, type SubagentInfo, type SubagentStatus } from './subagent.js';

/*
 * Questions the UI and the server ask of a state with sub-agents (PROTOCOL.md §24), answered once
 * here so both read scopes the same way.
 */

/** Whether a step is a `delegate` call: a `tool_call` that starts a sub-agent, whose scope is its id (§24.1). */
export function isDelegateCall(step: Pick<Step, 'kind' | 'tool'>): boolean {
  return step.kind === 'tool_call' && step.tool === DELEGATE_TOOL;
}

/** A delegate call's input parsed from its content (JSON, §24.1); undefined when it is not a valid one. */
export function parseDelegateInput(content: string): DelegateInput | undefined {
  let json: unknown;
  try {
    json = JSON.parse(content);
  } catch {
    return undefined;
  }
  const parsed = DelegateInputSchema.safeParse(json);
  return parsed.success ? parsed.data : undefined;
}

/** The steps of a scope's chain, first first: the session's own with `scope` absent, none for a scope never started (§24.2). */
export function scopeChainSteps(state: SessionState, scope?: string): Step[] {
  const chain = chainOfScope(state, scope) ?? [];
  return chain.map((id) => state.steps.get(id)).filter((step): step is Step => step !== undefined);
}

/** The sub-agent that wrote a step: the one of its `scope`; undefined for the session's own steps and unknown ids. */
export function subagentOfStep(state: SessionState, stepId: string): SubagentInfo | undefined {
  const scope = state.steps.get(stepId)?.scope;
  return scope === undefined ? undefined : state.subagents.get(scope);
}

/** Statuses in which a sub-agent has a run, or has one back once a pending call of it is decided: what `subagent.cancel` stops (§24.6). */
export const LIVE_SUBAGENT_STATUSES: ReadonlySet<SubagentStatus> = new Set<SubagentStatus>(['running', 'waiting']);

/** The sub-agents running or waiting for a decision, in the order they started (e.g. "2 sub-agents running"). */
export function runningSubagents(state: SessionState): SubagentInfo[] {
  return Array.from(state.subagents.values()).filter((subagent) => LIVE_SUBAGENT_STATUSES.has(subagent.status));
}

/** The scopes enclosing a step, innermost first (its own scope, that scope's parent …); empty for the session's own steps. */
export function enclosingScopes(state: SessionState, stepId: string): string[] {
  const scopes: string[] = [];
  for (let scope = state.steps.get(stepId)?.scope; scope !== undefined && !scopes.includes(scope); scope = state.subagents.get(scope)?.parentScope) {
    scopes.push(scope);
  }
  return scopes;
}
