import { DELEGATE_TOOL, chainOfScope, type SessionState, type Step } from '@interthought/protocol';

/** What a correction of `target` invalidates and stops, sub-agents included (PROTOCOL.md §24.4). */
export interface InvalidationPlan {
  /** Every step `steps.invalidated` lists: the target and the rest of its scope's chain, the steps of the sub-agents those started, and the parents' chains from their joins. */
  stepIds: string[];
  /** The scopes whose runs stop: the target's, its invalidated sub-agents', and each parent that had moved past its batch (`undefined` is the session's own run). */
  stoppedScopes: Set<string | undefined>;
  /** The enclosing scopes that had finished and run again (they get `subagent.status running`), innermost first. */
  reopened: string[];
}

function isDelegateCall(step: Step | undefined): boolean {
  return step !== undefined && step.kind === 'tool_call' && step.tool === DELEGATE_TOOL;
}

/**
 * What correcting `target` invalidates. Inside a scope, when the parent had already taken the
 * batch's results (its chain goes on after the batch), the parent's chain from the join is
 * invalidated too, and so on upward while the parent is itself a sub-agent that had finished.
 */
export function planInvalidation(state: SessionState, target: Step): InvalidationPlan {
  const plan: InvalidationPlan = { stepIds: [], stoppedScopes: new Set([target.scope]), reopened: [] };
  const listed = new Set<string>();
  const invalidate = (stepIds: readonly string[]): void => {
    for (const stepId of stepIds) {
      if (listed.has(stepId)) continue;
      listed.add(stepId);
      plan.stepIds.push(stepId);
      // A delegate call's sub-agent goes with it: every step of its scope's chain, and theirs.
      if (!isDelegateCall(state.steps.get(stepId))) continue;
      const inner = state.subagents.get(stepId);
      if (inner === undefined) continue;
      plan.stoppedScopes.add(stepId);
      invalidate(inner.chain);
    }
  };
  const own = chainOfScope(state, target.scope) ?? [];
  invalidate(own.slice(target.index));
  for (let level = target.scope; level !== undefined; ) {
    const info = state.subagents.get(level);
    if (info === undefined) break;
    const parentChain = chainOfScope(state, info.parentScope) ?? [];
    const at = parentChain.indexOf(level);
    if (at === -1) break;
    // The batch runs on over the delegate calls that follow; its join is the first step after it.
    let join = at + 1;
    while (join < parentChain.length && isDelegateCall(state.steps.get(parentChain[join]!))) join += 1;
    if (join >= parentChain.length) break;
    invalidate(parentChain.slice(join));
    plan.stoppedScopes.add(info.parentScope);
    if (info.parentScope !== undefined) plan.reopened.push(info.parentScope);
    level = info.parentScope;
  }
  return plan;
}
