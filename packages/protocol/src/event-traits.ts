import type { SessionEvent, SessionEventType } from './messages.js';

/*
 * What each session event does, decided once: the reducer, the server's live session, the
 * client's feeds and views read these traits instead of each keeping a switch of their own. A new
 * event type is a compile error here until its traits are written.
 */

/** A chain's change by an event: none, steps added at the head of their scope's chain, or steps that may leave the chains holding them. */
export type ChainShapeChange = 'no' | 'grows' | 'reshapes';

/** The traits of one session event type; `E` is that event. */
export interface SessionEventTraits<E extends SessionEvent = SessionEvent> {
  /** Kept in the session's log: every event but `session.deleted`, the last one, which goes with the log and ends every feed. */
  readonly logged: boolean;
  /** Folding it may change the session's summary (`SessionInfo`: status, revision, usage): what lists show and the server stores beside the log. */
  readonly changesSummary: boolean;
  /**
   * How it changes the chains: `grows` adds steps at the head of their scope's chain (the session's
   * own, or a sub-agent's, PROTOCOL.md §24.2), `reshapes` replaces or invalidates steps (some may
   * leave the chains holding them); `no` leaves every chain as it was.
   */
  readonly changesChainShape: ChainShapeChange;
  /** It adds steps or changes a step's `status` (started, completed, invalidated), not only a step's text, approval or usage. */
  readonly changesStepStatus: boolean;
  /** The steps it adds or changes, in the order it names them. */
  readonly touchesSteps: (event: E) => readonly string[];
  /** The steps that must exist for it to fit the state (the reducer refuses it with `UNKNOWN_STEP` otherwise). */
  readonly needsSteps: (event: E) => readonly string[];
  /** Whether it changes the messages waiting to reach the chain (`SessionState.queued`). */
  readonly changesQueue: (event: E) => boolean;
  /** It changes the session's share links (`SessionState.shares`). */
  readonly changesShares: boolean;
  /** It may change the sub-agents (`SessionState.subagents`) other than their chains: one started, a status, usage (§24.3). */
  readonly changesSubagents: boolean;
  /** It changes the approvals remembered for the session (`SessionState.remembered`, §25.3). */
  readonly changesRemembered: boolean;
}

/** The traits of every session event type, keyed by type. */
export type SessionEventTraitsTable = { readonly [T in SessionEventType]: SessionEventTraits<Extract<SessionEvent, { type: T }>> };

const NONE: readonly string[] = [];
const none = (): readonly string[] => NONE;
const never = (): boolean => false;
const oneStep = (event: { stepId: string }): readonly string[] => [event.stepId];
/** Traits of an event that touches no step, the chain, the queue nor the links. */
const QUIET = { logged: true, changesSummary: false, changesChainShape: 'no', changesStepStatus: false, touchesSteps: none, needsSteps: none, changesQueue: never, changesShares: false, changesSubagents: false, changesRemembered: false } as const;

/** What each session event does (PROTOCOL.md §11). */
export const SESSION_EVENT_TRAITS: SessionEventTraitsTable = {
  'session.status': { ...QUIET, changesSummary: true },
  'step.started': {
    ...QUIET,
    changesChainShape: 'grows',
    changesStepStatus: true,
    touchesSteps: (event) => [event.step.stepId],
    // A queued message reaches the chain as the `user_message` step with its id.
    changesQueue: (event) => event.step.kind === 'user_message',
  },
  'step.delta': { ...QUIET, touchesSteps: oneStep, needsSteps: oneStep },
  'step.completed': { ...QUIET, changesStepStatus: true, touchesSteps: oneStep, needsSteps: oneStep },
  'step.corrected': {
    ...QUIET,
    changesSummary: true,
    changesChainShape: 'reshapes',
    changesStepStatus: true,
    touchesSteps: (event) => [event.step.stepId],
    needsSteps: (event) => (event.step.correctionOf === undefined ? NONE : [event.step.correctionOf]),
  },
  'steps.invalidated': {
    ...QUIET,
    changesSummary: true,
    changesChainShape: 'reshapes',
    changesStepStatus: true,
    touchesSteps: (event) => event.stepIds,
    needsSteps: (event) => event.stepIds,
  },
  'approval.requested': { ...QUIET, touchesSteps: oneStep, needsSteps: oneStep },
  // A resolution with `remember` adds to the session's remembered approvals (§25.3).
  'approval.resolved': { ...QUIET, touchesSteps: oneStep, needsSteps: oneStep, changesRemembered: true },
  // A question's trail is on its call (§25.1); a breakpoint's mark on its step (§25.5).
  'input.requested': { ...QUIET, touchesSteps: oneStep, needsSteps: oneStep },
  'input.resolved': { ...QUIET, touchesSteps: oneStep, needsSteps: oneStep },
  'approvals.forgotten': { ...QUIET, changesRemembered: true },
  'breakpoint.hit': { ...QUIET, touchesSteps: oneStep, needsSteps: oneStep },
  // Not on the chain until its step starts.
  'message.queued': { ...QUIET, changesQueue: () => true },
  'steps.copied': {
    ...QUIET,
    // An import's copies carry the source's revision.
    changesSummary: true,
    changesChainShape: 'grows',
    changesStepStatus: true,
    touchesSteps: (event) => event.steps.map((step) => step.stepId),
  },
  'share.created': { ...QUIET, changesShares: true },
  'share.revoked': { ...QUIET, changesShares: true },
  'usage.recorded': {
    ...QUIET,
    // The session's usage totals are part of its summary (PROTOCOL.md §22.4).
    changesSummary: true,
    // Only the call's last step carries its usage.
    touchesSteps: (event) => event.stepIds.slice(-1),
    needsSteps: (event) => event.stepIds,
    // A scoped call counts in the usage of its scope and of every scope above it (§24.3).
    changesSubagents: true,
  },
  // A sub-agent's status is part of the session's state, not of its summary nor of any step.
  'subagent.started': { ...QUIET, needsSteps: (event) => [event.scope], changesSubagents: true },
  'subagent.status': { ...QUIET, needsSteps: (event) => [event.scope], changesSubagents: true },
  'session.deleted': { ...QUIET, logged: false },
};

/** Whether `type` is a session event type this version knows (a newer server may send others). */
export function isKnownSessionEventType(type: string): type is SessionEventType {
  return Object.hasOwn(SESSION_EVENT_TRAITS, type);
}

/** Whether a server frame is a session event this version knows. */
export function isKnownSessionEvent<F extends { type: string }>(frame: F): frame is Extract<F, SessionEvent> {
  return isKnownSessionEventType(frame.type);
}

/** The traits of `event`'s type, typed for it; undefined for a newer server's event type. */
export function traitsOf<E extends SessionEvent>(event: E): SessionEventTraits<E> | undefined {
  return isKnownSessionEventType(event.type) ? (SESSION_EVENT_TRAITS[event.type] as unknown as SessionEventTraits<E>) : undefined;
}

/** Whether folding `event` may change the session's summary. */
export function changesSummary(event: SessionEvent): boolean {
  return traitsOf(event)?.changesSummary ?? false;
}

/** The steps `event` adds or changes (none for a newer server's event type). */
export function touchedSteps(event: SessionEvent): readonly string[] {
  return traitsOf(event)?.touchesSteps(event) ?? NONE;
}
