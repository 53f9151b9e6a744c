import type { DelegateResult, SessionState, SubagentInfo } from '@interthought/protocol';
import type { ToolResult } from '@interthought/agent';
import type { LiveSession } from '../sessions/live-session.js';

/** How a sub-agent ended, as its parent's delegate call gets it: the observation's text and `result` (PROTOCOL.md §24.1). */
export interface SubagentOutcome extends ToolResult {
  output: DelegateResult;
}

/** The statuses a sub-agent ends in: its delegate call's observation can be written. */
export function isFinished(status: SubagentInfo['status']): status is 'completed' | 'failed' | 'cancelled' {
  return status === 'completed' || status === 'failed' || status === 'cancelled';
}

/** The sub-agent's answer: the last final answer of its scope's chain, else its last step's text. */
function answerOf(state: SessionState, info: SubagentInfo): string {
  const steps = info.chain.flatMap((id) => {
    const step = state.steps.get(id);
    return step === undefined ? [] : [step];
  });
  const final = steps.filter((step) => step.kind === 'final_answer').at(-1) ?? steps.at(-1);
  return final?.content ?? '';
}

/**
 * The outcome of a finished sub-agent, read from the session's state: what a parent gets for a
 * scope that finished and is still valid, at once and without running anything (after a restart too).
 */
export function storedOutcome(state: SessionState, info: SubagentInfo & { status: 'completed' | 'failed' | 'cancelled' }): SubagentOutcome {
  const { scope } = info;
  switch (info.status) {
    case 'completed': {
      const answer = answerOf(state, info);
      return { output: { subagent: scope, status: 'completed', answer }, text: answer.length > 0 ? answer : `Sub-agent "${info.name}" finished without an answer.` };
    }
    case 'failed': {
      const error = info.error ?? 'it failed without saying why';
      return { output: { subagent: scope, status: 'failed', error }, text: `Sub-agent "${info.name}" failed: ${error}` };
    }
    case 'cancelled':
      return { output: { subagent: scope, status: 'cancelled' }, text: `Sub-agent "${info.name}" was cancelled before it finished.` };
  }
}

type Waiter = (outcome: SubagentOutcome) => void;

/**
 * The parents waiting for their sub-agents' outcomes, by session and scope. A wait outlives the
 * runs of its scope: a correction inside the scope re-runs it while its parent goes on waiting,
 * and whichever run of the scope finishes settles it.
 */
export class SubagentOutcomes {
  readonly #waiting = new WeakMap<LiveSession, Map<string, Set<Waiter>>>();

  /** The scope's outcome once it finishes; rejects with the abort reason when `signal` (the parent's run) aborts first. */
  wait(session: LiveSession, scope: string, signal: AbortSignal): Promise<SubagentOutcome> {
    if (signal.aborted) return Promise.reject(signal.reason);
    let byScope = this.#waiting.get(session);
    if (byScope === undefined) {
      byScope = new Map();
      this.#waiting.set(session, byScope);
    }
    let waiters = byScope.get(scope);
    if (waiters === undefined) {
      waiters = new Set();
      byScope.set(scope, waiters);
    }
    const registered = waiters;
    return new Promise<SubagentOutcome>((resolve, reject) => {
      const onAbort = (): void => {
        registered.delete(settle);
        reject(signal.reason);
      };
      const settle: Waiter = (outcome) => {
        signal.removeEventListener('abort', onAbort);
        resolve(outcome);
      };
      registered.add(settle);
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** The scope finished: every parent waiting for it gets `outcome`. */
  settle(session: LiveSession, scope: string, outcome: SubagentOutcome): void {
    const byScope = this.#waiting.get(session);
    const waiters = byScope?.get(scope);
    if (waiters === undefined) return;
    byScope!.delete(scope);
    for (const settle of waiters) settle(outcome);
  }
}
