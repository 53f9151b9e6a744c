import { FIELD_LIMITS } from './limits.js';
import type { SessionState } from './reducer.js';
import type { RunTime, SessionStatus } from './session.js';
import type { Step } from './step.js';
import { ASK_USER_TOOL } from './question.js';

/*
 * Rules the server enforces and every client shows: one definition here, imported by both, so a
 * button the UI offers is never one the server refuses (PROTOCOL.md §5 "Sessions" and §7 "Correction semantics").
 */

/** Statuses in which a session is active: it has a run, or (paused) may get it back. A run holds a slot of its owner's caps. */
export const ACTIVE_STATUSES: ReadonlySet<SessionStatus> = new Set<SessionStatus>(['running', 'paused']);

/**
 * Statuses in which a session is live: active, or `waiting`, where a run ended on a tool call that
 * waits for the user's decision, and deciding starts the next. The session's time still runs, and
 * reaching its token budget fails it. Every other status is at rest until the user acts.
 */
export const LIVE_STATUSES: ReadonlySet<SessionStatus> = new Set<SessionStatus>([...ACTIVE_STATUSES, 'waiting']);

/** Whether a session in `status` is active: running or paused (PROTOCOL.md §5.1). */
export function isActive(status: SessionStatus | undefined): boolean {
  return status !== undefined && ACTIVE_STATUSES.has(status);
}

/** Whether a session in `status` is live: running, paused or waiting for a decision (PROTOCOL.md §5.1). */
export function isLive(status: SessionStatus | undefined): boolean {
  return status !== undefined && LIVE_STATUSES.has(status);
}

/**
 * How long the agent has run at `now` (ms since the epoch), from the state's `runTime`: the closed
 * `running` intervals and, while it runs, the open one; a finished session gives its total.
 * Undefined when the state does not know (a snapshot from an older server).
 */
export function runTimeMs(runTime: RunTime | undefined, now: number): number | undefined {
  if (runTime === undefined) return undefined;
  const open = runTime.runningSince === undefined ? 0 : Math.max(0, now - Date.parse(runTime.runningSince)) || 0;
  return runTime.totalMs + open;
}

/** The user's lifecycle requests (`session.pause` / `session.resume` / `session.cancel`). */
export type LifecycleRequest = 'pause' | 'resume' | 'cancel';

/** The statuses each lifecycle request applies to; in any other the server answers `INVALID_STATE`. */
export const LIFECYCLE_ALLOWED_FROM: Readonly<Record<LifecycleRequest, readonly SessionStatus[]>> = {
  pause: ['running'],
  resume: ['paused', 'interrupted'],
  // Cancel stops a run: a finished session has none, and stays open to corrections.
  // A session waiting for an approval can be cancelled; resuming it is deciding the pending call.
  cancel: ['running', 'paused', 'waiting', 'interrupted'],
};

/** Whether `request` applies to a session in `status`. */
export function allowsLifecycle(request: LifecycleRequest, status: SessionStatus | undefined): boolean {
  return status !== undefined && LIFECYCLE_ALLOWED_FROM[request].includes(status);
}

/**
 * Whether a step is on the current chain of its scope (the session's own, or its sub-agent's,
 * PROTOCOL.md §24.2): not invalidated, that chain's step at its index, and its scope current: its
 * delegate call on the chain of its own scope, and so on up to the root (§24.4).
 */
export function isOnChain(state: SessionState, step: Step): boolean {
  const seen = new Set<string>();
  for (let at: Step | undefined = step; at !== undefined; at = at.scope === undefined ? undefined : state.steps.get(at.scope)) {
    if (at.status === 'invalidated' || seen.has(at.stepId)) return false;
    seen.add(at.stepId);
    const chain = at.scope === undefined ? state.chain : state.subagents.get(at.scope)?.chain;
    if (chain === undefined || chain[at.index] !== at.stepId) return false;
    if (at.scope !== undefined && !state.steps.has(at.scope)) return false;
  }
  return true;
}

/** Whether the protocol allows correcting this step now (on the chain, session neither cancelled nor deleted). */
export function isCorrectable(state: SessionState, stepId: string): boolean {
  const step = state.steps.get(stepId);
  if (!step || state.session.status === 'cancelled' || state.deleted === true) return false;
  return isOnChain(state, step);
}

/** A client frame's `id` as the answer may echo it (`requestId`): a string of 1 to `requestIdMax` characters, else none. */
export function usableRequestId(value: unknown): string | undefined {
  return typeof value === 'string' && value.length >= 1 && value.length <= FIELD_LIMITS.requestIdMax ? value : undefined;
}

/** Why a step cannot be approved or rejected now; `undefined` when it can (PROTOCOL.md §17.3). */
export type DecisionRefusal = 'not_found' | 'not_a_tool_call' | 'not_requested' | 'already_decided' | 'invalidated' | 'session_not_waiting';

/** The session statuses in which a pending call inside a waiting sub-agent can be decided: its siblings run, or nothing does. */
const SCOPED_DECISION_STATUSES: ReadonlySet<SessionStatus> = new Set<SessionStatus>(['running', 'waiting']);

/** Whether `tool.approve` / `tool.reject` apply to this step now, and if not, why not. */
export function decisionRefusal(state: SessionState, stepId: string): DecisionRefusal | undefined {
  const step = state.steps.get(stepId);
  if (step === undefined) return 'not_found';
  if (step.kind !== 'tool_call') return 'not_a_tool_call';
  if (step.approval === undefined) return 'not_requested';
  if (step.approval.state !== 'pending') return 'already_decided';
  if (!isOnChain(state, step)) return 'invalidated';
  if (state.deleted === true) return 'session_not_waiting';
  // A call inside a sub-agent waits with its sub-agent while sibling scopes may still run, but not
  // in a session paused or at rest: deciding would start a run there (PROTOCOL.md §24.5).
  if (!waitsNow(state, step)) return 'session_not_waiting';
  return undefined;
}

/** Whether the step's scope (the session, or its sub-agent) waits for the user now, so a decision or an answer may start its run. */
function waitsNow(state: SessionState, step: Step): boolean {
  return step.scope === undefined
    ? state.session.status === 'waiting'
    : state.subagents.get(step.scope)?.status === 'waiting' && SCOPED_DECISION_STATUSES.has(state.session.status);
}

/** Why a step's question cannot be answered now (`input.provide`, PROTOCOL.md §25.2); `undefined` when it can. */
export type InputRefusal = 'not_found' | 'not_a_question' | 'not_asked' | 'already_answered' | 'timed_out' | 'invalidated' | 'session_not_waiting';

/** Whether `input.provide` applies to this step now, and if not, why not, in the order of §25.2. */
export function inputRefusal(state: SessionState, stepId: string): InputRefusal | undefined {
  const step = state.steps.get(stepId);
  if (step === undefined) return 'not_found';
  if (step.kind !== 'tool_call' || step.tool !== ASK_USER_TOOL) return 'not_a_question';
  if (step.question === undefined) return 'not_asked';
  if (step.question.state === 'answered') return 'already_answered';
  if (step.question.state === 'timed_out') return 'timed_out';
  if (!isOnChain(state, step)) return 'invalidated';
  if (state.deleted === true || !waitsNow(state, step)) return 'session_not_waiting';
  return undefined;
}

/** Whether the step is a question waiting for the user's answer now (what the UI shows the question card on). */
export function isAwaitingInput(state: SessionState, stepId: string): boolean {
  return inputRefusal(state, stepId) === undefined;
}

/** The `ask_user` calls that wait for an answer now, the session's first, then its sub-agents' in the order they started. */
export function pendingQuestions(state: SessionState): Step[] {
  const heads = [state.chain, ...Array.from(state.subagents.values(), (subagent) => subagent.chain)].map((chain) => chain[chain.length - 1]);
  return heads.flatMap((stepId) => (stepId !== undefined && isAwaitingInput(state, stepId) ? [state.steps.get(stepId)!] : []));
}

/**
 * The step a breakpoint stopped the session at, while it is still there (PROTOCOL.md §25.5): the
 * session is `paused` and the marked step is still the head of its scope's chain. A correction of
 * it leaves the corrected step at the head, not marked: the session then waits on the user's own step.
 */
export function pausedAtBreakpoint(state: SessionState): Step | undefined {
  if (state.session.status !== 'paused') return undefined;
  const heads = [state.chain, ...Array.from(state.subagents.values(), (subagent) => subagent.chain)].map((chain) => chain[chain.length - 1]);
  for (const stepId of heads) {
    const step = stepId === undefined ? undefined : state.steps.get(stepId);
    if (step?.breakpoint !== undefined && isOnChain(state, step)) return step;
  }
  return undefined;
}

/** Whether the step is a tool call waiting for the user's decision now (what the UI offers Approve / Edit / Reject on). */
export function isAwaitingDecision(state: SessionState, stepId: string): boolean {
  return decisionRefusal(state, stepId) === undefined;
}

/**
 * Whether `session.message` applies to a session in `status` (PROTOCOL.md §20.2): in every status
 * but `waiting`, where the pending tool call is decided first (a rejection's reason is the message).
 */
export function allowsMessage(status: SessionStatus | undefined): boolean {
  return status !== undefined && status !== 'waiting';
}
