import { ASK_USER_TOOL, isLive, type SessionOptions, type SessionState, type Step } from '@interthought/protocol';
import { isAskUserCall, questionDetail } from './questions.js';

/*
 * What a session waits for the user on (PROTOCOL.md §19.2, §25.1): a tool call's approval or an
 * `ask_user` question, the session's own or a sub-agent's. One clock per session times the first
 * of them out (§19.4, §25.2).
 */

/** Which kind of wait: a decision on a tool call, or the answer to a question. */
export type WaitKind = 'approval' | 'question';

/** A call that waits for the user, since `requestedAt`. */
export interface PendingWait {
  stepId: string;
  requestedAt?: string;
  kind: WaitKind;
}

/** The head of `chain` when it waits for the user: a pending approval or a pending question. */
function waitingHead(state: SessionState, chain: readonly string[] | undefined): PendingWait | undefined {
  const headId = chain?.[chain.length - 1];
  const head = headId === undefined ? undefined : state.steps.get(headId);
  if (head === undefined) return undefined;
  const trail = head.approval?.state === 'pending' ? head.approval : head.tool === ASK_USER_TOOL && head.question?.state === 'pending' ? head.question : undefined;
  if (trail === undefined) return undefined;
  const kind: WaitKind = trail === head.approval ? 'approval' : 'question';
  return trail.requestedAt === undefined ? { stepId: head.stepId, kind } : { stepId: head.stepId, requestedAt: trail.requestedAt, kind };
}

/**
 * The calls that wait for the user, in order: the head of the chain when the session waits, then
 * the heads of the sub-agents that wait (PROTOCOL.md §24.5), while the rest may run.
 */
export function pendingWaits(state: SessionState): PendingWait[] {
  const found: PendingWait[] = [];
  if (state.session.status === 'waiting') {
    const root = waitingHead(state, state.chain);
    if (root !== undefined) found.push(root);
  }
  if (!isLive(state.session.status)) return found;
  for (const info of state.subagents.values()) {
    if (info.status !== 'waiting' || state.steps.get(info.scope)?.status === 'invalidated') continue;
    const scoped = waitingHead(state, info.chain);
    if (scoped !== undefined) found.push(scoped);
  }
  return found;
}

/** How long a wait of `kind` may last under the session's options; undefined: it waits for as long as it takes. */
export function waitTimeoutMs(kind: WaitKind, options: SessionOptions): number | undefined {
  return kind === 'question' ? options.inputTimeoutMs : options.approvalTimeoutMs;
}

/** The first wait the session's options time out, which its one clock runs for. */
export function timedWait(state: SessionState, options: SessionOptions): (PendingWait & { timeoutMs: number }) | undefined {
  for (const wait of pendingWaits(state)) {
    const timeoutMs = waitTimeoutMs(wait.kind, options);
    if (timeoutMs !== undefined) return { ...wait, timeoutMs };
  }
  return undefined;
}

/** The `detail` of a session waiting on `call`: its question, or the tool it waits to run. */
export function waitingDetail(call: Step | undefined): string {
  if (call !== undefined && isAskUserCall(call)) return questionDetail(call);
  return `Waiting for approval: ${call?.tool ?? 'a tool'}`;
}
