import type { StepApproval } from './approval.js';
import type { RememberedApproval } from './approval-rules.js';
import type { QueuedMessage } from './conversation.js';
import type { ShareRecord } from './sharing.js';
import type { SessionEvent } from './messages.js';
import { traitsOf } from './event-traits.js';
import type { RunTime, SessionInfo, SessionSnapshot, SessionStatus } from './session.js';
import type { Step, StepCorrectedEvent, StepStartedEvent, StepsCopiedEvent } from './step.js';
import type { SubagentInfo } from './subagent.js';
import type { StepBreakpoint } from './breakpoint.js';
import { addUsage, type CallUsage, type UsageRecordedEvent } from './usage.js';

/**
 * A session's state: the fold of its events. The server, the web app and third-party clients
 * all build it with `applyEvent`, so a snapshot, a replay and a live stream cannot disagree.
 */
export interface SessionState {
  session: SessionInfo;
  /** Every step of every branch, in creation order. */
  steps: Map<string, Step>;
  /** The ids of each step's children in creation order; first steps are under the key `ROOT_KEY`. */
  children: Map<string, string[]>;
  /** The path of step ids from the root to the head: what the agent builds on now. */
  chain: string[];
  /** The `seq` of the last event folded in (0 when none). */
  seq: number;
  /** Set by `session.deleted`: the session no longer exists on the server (additive, v1.1). */
  deleted?: boolean;
  /** Messages that wait to reach the chain, oldest first (`message.queued`; capability `conversation`). */
  queued: QueuedMessage[];
  /** The share links not revoked, oldest first (`share.created` / `share.revoked`; capability `sharing`). */
  shares: ShareRecord[];
  /**
   * The sub-agents, by scope (the delegate call's step id), in the order they started; each holds
   * its scope's chain (`subagent.started` / `subagent.status`; capability `subagents`, PROTOCOL.md §24).
   */
  subagents: Map<string, SubagentInfo>;
  /**
   * The approvals given with `remember: "session"` and not forgotten, by tool, oldest first
   * (`approval.resolved` / `approvals.forgotten`; capability `approval-rules`, PROTOCOL.md §25.3).
   */
  remembered: Map<string, RememberedApproval>;
  /** How long the agent has run, from the `session.status` history (absent before it first ran, or from a snapshot without it). */
  runTime?: RunTime;
}

/** The `children` key of the steps whose `parentId` is `null`. */
export const ROOT_KEY = '';

/** The `children` key of a scope's first steps (`parentId` `null`): apart from the root's and from the delegate call's own children. */
export function scopeRootKey(scope: string): string {
  return `@${scope}`;
}

/** The `children` key a step is listed under: its parent, or the root of its scope. */
export function childrenKeyOf(step: Pick<Step, 'parentId' | 'scope'>): string {
  if (step.parentId !== null) return step.parentId;
  return step.scope === undefined ? ROOT_KEY : scopeRootKey(step.scope);
}

/** Why an event does not fit the state it was applied to. */
export type ReducerErrorCode =
  | 'WRONG_SESSION'
  | 'SEQ_GAP'
  | 'SEQ_REPLAYED'
  | 'UNKNOWN_STEP'
  | 'DUPLICATE_STEP'
  | 'NOT_ON_CHAIN'
  | 'STEP_NOT_STREAMING'
  | 'UNKNOWN_SCOPE'
  | 'DUPLICATE_SCOPE';

/** Thrown by `applyEvent` for an event that does not fit: the state is left unchanged. */
export class ReducerError extends Error {
  override readonly name = 'ReducerError';
  constructor(
    readonly code: ReducerErrorCode,
    message: string,
    readonly event: SessionEvent,
  ) {
    super(message);
  }
}

/** The snapshot fields a state can be created from or exported to. */
export type SessionSnapshotData = Pick<SessionSnapshot, 'session' | 'steps' | 'chain' | 'seq' | 'queued' | 'shares' | 'subagents' | 'remembered' | 'runTime'>;

function blankSession(): SessionInfo {
  return { sessionId: '', task: '', agent: '', status: 'running', revision: 0, createdAt: '' };
}

function addChild(children: Map<string, string[]>, step: Step): void {
  const key = childrenKeyOf(step);
  const list = children.get(key);
  if (list) list.push(step.stepId);
  else children.set(key, [step.stepId]);
}

function isSnapshotData(from: SessionSnapshotData | SessionInfo): from is SessionSnapshotData {
  return Array.isArray((from as SessionSnapshotData).steps) && typeof (from as SessionSnapshotData).session === 'object';
}

/**
 * A new state: empty, for a known session (its info), or from a `session.snapshot`.
 * The input is copied, never kept.
 */
export function createSessionState(from?: SessionSnapshotData | SessionInfo): SessionState {
  const state: SessionState = { session: blankSession(), steps: new Map(), children: new Map(), chain: [], seq: 0, queued: [], shares: [], subagents: new Map(), remembered: new Map() };
  if (!from) return state;
  if (!isSnapshotData(from)) {
    state.session = { ...from };
    return state;
  }
  state.session = { ...from.session };
  for (const step of from.steps) {
    const copy = { ...step };
    state.steps.set(copy.stepId, copy);
    addChild(state.children, copy);
  }
  state.chain = [...from.chain];
  state.seq = from.seq;
  state.queued = (from.queued ?? []).map((message) => ({ ...message }));
  state.shares = (from.shares ?? []).map((share) => ({ ...share }));
  for (const subagent of from.subagents ?? []) state.subagents.set(subagent.scope, copySubagent(subagent));
  for (const remembered of from.remembered ?? []) state.remembered.set(remembered.tool, { ...remembered });
  if (from.runTime !== undefined) state.runTime = { ...from.runTime };
  return state;
}

function copySubagent(subagent: SubagentInfo): SubagentInfo {
  const copy: SubagentInfo = { ...subagent, chain: [...subagent.chain] };
  if (subagent.usage !== undefined) copy.usage = { ...subagent.usage };
  return copy;
}

/** The state as snapshot fields (copies), e.g. to serve `session.snapshot`. */
export function toSnapshot(state: SessionState): SessionSnapshotData {
  const snapshot: SessionSnapshotData = {
    session: { ...state.session },
    steps: Array.from(state.steps.values(), (step) => ({ ...step })),
    chain: [...state.chain],
    seq: state.seq,
  };
  if (state.queued.length > 0) snapshot.queued = state.queued.map((message) => ({ ...message }));
  if (state.shares.length > 0) snapshot.shares = state.shares.map((share) => ({ ...share }));
  if (state.subagents.size > 0) snapshot.subagents = Array.from(state.subagents.values(), copySubagent);
  if (state.remembered.size > 0) snapshot.remembered = Array.from(state.remembered.values(), (remembered) => ({ ...remembered }));
  if (state.runTime !== undefined) snapshot.runTime = { ...state.runTime };
  return snapshot;
}

function requireStep(state: SessionState, stepId: string, event: SessionEvent): Step {
  const step = state.steps.get(stepId);
  if (!step) throw new ReducerError('UNKNOWN_STEP', `Event ${event.seq} (${event.type}) names unknown step ${stepId}.`, event);
  return step;
}

/** The first seq an event stands for: a coalesced delta's `fromSeq`, otherwise its own `seq`. */
export function firstSeqOf(event: SessionEvent): number {
  return event.type === 'step.delta' && event.fromSeq !== undefined ? event.fromSeq : event.seq;
}

/** The event must continue the state: its first seq (`fromSeq ?? seq`) is the next one, and a coalesced range ends at or after it. */
function checkOrder(state: SessionState, event: SessionEvent): void {
  if (state.session.sessionId && event.sessionId !== state.session.sessionId) {
    throw new ReducerError('WRONG_SESSION', `Event for session ${event.sessionId} applied to ${state.session.sessionId}.`, event);
  }
  const expected = state.seq + 1;
  const first = firstSeqOf(event);
  if (first > expected) {
    throw new ReducerError('SEQ_GAP', `Expected seq ${expected} but got ${first}: events ${expected}–${first - 1} are missing.`, event);
  }
  if (first < expected) {
    throw new ReducerError('SEQ_REPLAYED', `Event seq ${first} was already applied (state is at ${state.seq}).`, event);
  }
  if (event.seq < first) {
    throw new ReducerError('SEQ_REPLAYED', `Coalesced delta ends at seq ${event.seq}, before its fromSeq ${first}: that seq was already applied.`, event);
  }
}

/**
 * The chain a step of `scope` belongs to: the session's own (`scope` absent), or that sub-agent's
 * (PROTOCOL.md §24.2). Undefined for a scope no `subagent.started` opened.
 */
export function chainOfScope(state: SessionState, scope: string | undefined): string[] | undefined {
  return scope === undefined ? state.chain : state.subagents.get(scope)?.chain;
}

function requireChain(state: SessionState, scope: string | undefined, event: SessionEvent): string[] {
  const chain = chainOfScope(state, scope);
  if (chain === undefined) throw new ReducerError('UNKNOWN_SCOPE', `Event ${event.seq} (${event.type}) names scope ${scope}, which no subagent.started opened.`, event);
  return chain;
}

function checkStarted(state: SessionState, event: StepStartedEvent): void {
  checkContinuesChain(state, [event.step], event);
}

/** Steps that go on the head of their scope's chain one after another: new ids, each the child of the one before. */
function checkContinuesChain(state: SessionState, steps: readonly Step[], event: SessionEvent): void {
  const scope = steps[0]?.scope;
  const chain = requireChain(state, scope, event);
  let head = chain[chain.length - 1] ?? null;
  let index = chain.length;
  const seen = new Set<string>();
  for (const step of steps) {
    if (state.steps.has(step.stepId) || seen.has(step.stepId)) throw new ReducerError('DUPLICATE_STEP', `Step ${step.stepId} already exists.`, event);
    if (step.scope !== scope) throw new ReducerError('NOT_ON_CHAIN', `Step ${step.stepId} is in scope ${step.scope}, not ${scope} as the steps before it.`, event);
    if (step.parentId !== head || step.index !== index) {
      throw new ReducerError(
        'NOT_ON_CHAIN',
        `Step ${step.stepId} starts under ${step.parentId} at index ${step.index}, but the chain's head is ${head} at index ${index - 1}.`,
        event,
      );
    }
    seen.add(step.stepId);
    head = step.stepId;
    index += 1;
  }
}

/** Put a step on the head of its scope's chain (checked to exist). */
function pushOnChain(state: SessionState, step: Step): void {
  state.steps.set(step.stepId, step);
  addChild(state.children, step);
  chainOfScope(state, step.scope)!.push(step.stepId);
}

/** A corrected step takes the place of the chain's step at its index: same parent, same index. */
function checkCorrected(state: SessionState, event: StepCorrectedEvent): void {
  const { step } = event;
  if (state.steps.has(step.stepId)) throw new ReducerError('DUPLICATE_STEP', `Step ${step.stepId} already exists.`, event);
  const chain = requireChain(state, step.scope, event);
  const expectedParent = step.index === 0 ? null : chain[step.index - 1];
  const replaced = chain[step.index];
  if (step.parentId !== expectedParent || replaced === undefined || (step.correctionOf !== undefined && step.correctionOf !== replaced)) {
    throw new ReducerError(
      'NOT_ON_CHAIN',
      `Corrected step ${step.stepId} (parent ${step.parentId}, index ${step.index}) does not replace a step of the chain.`,
      event,
    );
  }
}

/** Checks that an event can be applied, without changing anything, so a failed apply leaves no trace. */
function checkFits(state: SessionState, event: SessionEvent): void {
  // Which steps must exist is the event's trait; what else must hold is its own.
  const traits = traitsOf(event);
  if (traits !== undefined) for (const stepId of traits.needsSteps(event)) requireStep(state, stepId, event);
  switch (event.type) {
    case 'step.started':
      return checkStarted(state, event);
    case 'step.delta': {
      const step = state.steps.get(event.stepId)!;
      if (step.status !== 'streaming') {
        throw new ReducerError('STEP_NOT_STREAMING', `Delta for step ${step.stepId}, which is ${step.status}.`, event);
      }
      return;
    }
    case 'step.corrected':
      return checkCorrected(state, event);
    case 'message.queued':
      if (state.steps.has(event.stepId) || state.queued.some((message) => message.stepId === event.stepId)) {
        throw new ReducerError('DUPLICATE_STEP', `Step ${event.stepId} already exists.`, event);
      }
      return;
    case 'steps.copied':
      return checkContinuesChain(state, (event as StepsCopiedEvent).steps, event);
    case 'subagent.started': {
      if (state.subagents.has(event.scope)) throw new ReducerError('DUPLICATE_SCOPE', `Sub-agent ${event.scope} was already started.`, event);
      if (event.parentScope !== undefined) requireChain(state, event.parentScope, event);
      // Usage counts up the parent scopes, so the parent named must be the one the delegate call is in.
      const callScope = state.steps.get(event.scope)!.scope;
      if (event.parentScope !== callScope) {
        throw new ReducerError('UNKNOWN_SCOPE', `Sub-agent ${event.scope} names parent scope ${event.parentScope ?? '(the root)'}, but its delegate call is in ${callScope ?? 'the root'}.`, event);
      }
      return;
    }
    case 'subagent.status':
      requireChain(state, event.scope, event);
      return;
    case 'step.completed':
    case 'steps.invalidated':
    case 'usage.recorded':
    case 'approval.requested':
    case 'approval.resolved':
    case 'input.requested':
    case 'input.resolved':
    case 'approvals.forgotten':
    case 'breakpoint.hit':
    case 'session.status':
    case 'session.deleted':
    case 'share.created':
    case 'share.revoked':
      return;
    default: {
      // A newer server's event type: nothing to check.
      const unknown: never = event;
      void unknown;
    }
  }
}

/**
 * Fold one event into the state, in place, and return the state. O(1) amortised for
 * `step.delta` (string appends are ropes in JS engines; nothing is copied). Throws a
 * `ReducerError`, leaving the state unchanged, for an event that does not fit.
 * Unknown event types (from a newer server) only advance `seq`.
 */
export function applyEvent(state: SessionState, event: SessionEvent): SessionState {
  checkOrder(state, event);
  checkFits(state, event);
  if (!state.session.sessionId) state.session.sessionId = event.sessionId;
  state.seq = event.seq;
  switch (event.type) {
    case 'session.status':
      state.session.status = event.status;
      if (event.error !== undefined) state.session.error = event.error;
      else delete state.session.error;
      if (event.detail !== undefined) state.session.detail = event.detail;
      else delete state.session.detail;
      if (event.failure !== undefined) state.session.failure = event.failure;
      else delete state.session.failure;
      foldRunTime(state, event.status, event.at);
      break;
    case 'step.started': {
      const step: Step = { ...event.step, startedAt: event.step.startedAt ?? event.at };
      pushOnChain(state, step);
      // A queued message reaches the chain as the step with its id.
      if (state.queued.length > 0) state.queued = state.queued.filter((message) => message.stepId !== step.stepId);
      break;
    }
    case 'steps.copied':
      for (const copied of event.steps) pushOnChain(state, { ...copied });
      if (event.revision !== undefined) state.session.revision = event.revision;
      break;
    case 'message.queued': {
      const message: QueuedMessage = { stepId: event.stepId, text: event.text, mode: event.mode, at: event.at };
      if (event.by !== undefined) message.by = event.by;
      if (event.byName !== undefined) message.byName = event.byName;
      state.queued.push(message);
      break;
    }
    case 'share.created':
      // A share made again with the same id (a replayed command) replaces the first.
      state.shares = [...state.shares.filter((share) => share.shareId !== event.share.shareId), { ...event.share }];
      break;
    case 'share.revoked':
      state.shares = state.shares.filter((share) => share.shareId !== event.shareId);
      break;
    case 'step.delta': {
      // A coalesced delta (fromSeq…seq) carries its events' texts already joined.
      const step = state.steps.get(event.stepId)!;
      step.content += event.text;
      break;
    }
    case 'step.completed': {
      const step = state.steps.get(event.stepId)!;
      step.content = event.content;
      if (step.status === 'streaming') step.status = 'completed';
      if (event.tool !== undefined) step.tool = event.tool;
      if (event.result !== undefined) step.result = event.result;
      // A standing decision (a remembered approval, a rule) let the call run or refused it (§25.3, §25.4).
      if (event.approval !== undefined) step.approval = { ...event.approval };
      step.completedAt = event.at;
      break;
    }
    case 'step.corrected': {
      const step: Step = { ...event.step, startedAt: event.step.startedAt ?? event.at, completedAt: event.step.completedAt ?? event.at };
      state.steps.set(step.stepId, step);
      addChild(state.children, step);
      const chain = chainOfScope(state, step.scope)!;
      chain.length = step.index;
      chain.push(step.stepId);
      state.session.revision = event.revision;
      break;
    }
    case 'steps.invalidated':
      for (const stepId of event.stepIds) state.steps.get(stepId)!.status = 'invalidated';
      leaveChains(state, event.stepIds);
      state.session.revision = event.revision;
      break;
    case 'subagent.started': {
      const subagent: SubagentInfo = { scope: event.scope, depth: event.depth, name: event.name, agent: event.agent, task: event.task, status: 'running', chain: [] };
      if (event.parentScope !== undefined) subagent.parentScope = event.parentScope;
      state.subagents.set(event.scope, subagent);
      break;
    }
    case 'subagent.status': {
      const subagent = state.subagents.get(event.scope)!;
      subagent.status = event.status;
      if (event.error !== undefined) subagent.error = event.error;
      else delete subagent.error;
      break;
    }
    case 'approval.requested':
      state.steps.get(event.stepId)!.approval = { state: 'pending', requestedAt: event.at };
      break;
    case 'approval.resolved': {
      const step = state.steps.get(event.stepId)!;
      const approval: StepApproval = { state: event.decision, by: event.by, at: event.at };
      if (step.approval?.requestedAt !== undefined) approval.requestedAt = step.approval.requestedAt;
      if (event.reason !== undefined) approval.reason = event.reason;
      if (event.byName !== undefined) approval.byName = event.byName;
      step.approval = approval;
      // Given once for the session: later calls of the tool run without asking (PROTOCOL.md §25.3).
      if (event.remember === 'session' && event.decision === 'approved' && step.tool !== undefined) {
        const remembered: RememberedApproval = { tool: step.tool, by: event.by, at: event.at, stepId: step.stepId };
        if (event.byName !== undefined) remembered.byName = event.byName;
        state.remembered.delete(step.tool);
        state.remembered.set(step.tool, remembered);
      }
      break;
    }
    case 'approvals.forgotten':
      for (const tool of event.tools) state.remembered.delete(tool);
      break;
    case 'input.requested':
      state.steps.get(event.stepId)!.question = { state: 'pending', requestedAt: event.at };
      break;
    case 'input.resolved': {
      const step = state.steps.get(event.stepId)!;
      const requestedAt = step.question?.requestedAt;
      step.question = { state: event.outcome, by: event.by, at: event.at, ...(requestedAt === undefined ? {} : { requestedAt }), ...(event.byName === undefined ? {} : { byName: event.byName }) };
      break;
    }
    case 'breakpoint.hit': {
      const mark: StepBreakpoint = { at: event.at };
      if (typeof event.breakpoint.kind === 'string') mark.kind = event.breakpoint.kind;
      if (typeof event.breakpoint.tool === 'string') mark.tool = event.breakpoint.tool;
      if (event.index !== undefined) mark.index = event.index;
      state.steps.get(event.stepId)!.breakpoint = mark;
      break;
    }
    case 'usage.recorded':
      recordUsage(state, event);
      break;
    case 'session.deleted':
      // The tree stays as it was, for a client that still shows it; the session is gone on the server.
      state.deleted = true;
      break;
    default: {
      // A newer server's event type: tolerated, only its seq counts.
      const unknown: never = event;
      void unknown;
    }
  }
  return state;
}

/**
 * Invalidated steps leave the chains that hold them: a chain (the root's or a scope's) ends before
 * the first of them it holds. A correction's own steps left already (`step.corrected` cut the
 * chain); a correction inside a scope also invalidates the parent's steps after the join (§24.4).
 */
function leaveChains(state: SessionState, stepIds: readonly string[]): void {
  const scopes = new Set<string | undefined>();
  for (const stepId of stepIds) scopes.add(state.steps.get(stepId)!.scope);
  for (const scope of scopes) {
    const chain = chainOfScope(state, scope);
    if (chain === undefined) continue;
    const leaving = new Set(stepIds);
    const at = chain.findIndex((stepId) => leaving.has(stepId));
    if (at !== -1) chain.length = at;
  }
}

/**
 * A model call's usage: added to the session's totals (PROTOCOL.md §22 "Usage and cost"), and
 * carried by the last step the call produced, invalidated or not: the tokens were spent.
 */
function recordUsage(state: SessionState, event: UsageRecordedEvent): void {
  state.session.usage = addUsage(state.session.usage, event.usage);
  const lastId = event.stepIds[event.stepIds.length - 1];
  if (lastId === undefined) return;
  const usage: CallUsage = { model: event.model, ...event.usage };
  if (event.timeToFirstTokenMs !== undefined) usage.timeToFirstTokenMs = event.timeToFirstTokenMs;
  if (event.durationMs !== undefined) usage.durationMs = event.durationMs;
  const step = state.steps.get(lastId)!;
  step.usage = usage;
  // A sub-agent's totals count its own calls and its sub-agents' (PROTOCOL.md §24.3).
  for (let scope = step.scope; scope !== undefined; ) {
    const subagent = state.subagents.get(scope);
    if (subagent === undefined) break;
    subagent.usage = addUsage(subagent.usage, event.usage);
    scope = subagent.parentScope;
  }
}

/** Fold many events in order. */
export function applyEvents(state: SessionState, events: Iterable<SessionEvent>): SessionState {
  for (const event of events) applyEvent(state, event);
  return state;
}

/** The steps of the current chain, root first. */
export function chainSteps(state: SessionState): Step[] {
  return state.chain.map((id) => state.steps.get(id)).filter((step): step is Step => step !== undefined);
}

/** The alternatives at a step's position: its siblings (itself included), oldest first. */
export function alternativesOf(state: SessionState, stepId: string): string[] {
  const step = state.steps.get(stepId);
  if (!step) return [];
  return state.children.get(childrenKeyOf(step)) ?? [stepId];
}

/** The sub-agents a scope started (the root's when `scope` is absent), in the order they started. */
export function subagentsOf(state: SessionState, scope?: string): SubagentInfo[] {
  return Array.from(state.subagents.values()).filter((subagent) => subagent.parentScope === scope);
}

/** Open a `running` interval when the session starts running, close it (adding it up) when it stops (PROTOCOL.md §11.1). */
function foldRunTime(state: SessionState, status: SessionStatus, at: string): void {
  const runTime = state.runTime ?? { totalMs: 0 };
  if (status === 'running') {
    if (runTime.runningSince === undefined) runTime.runningSince = at;
  } else if (runTime.runningSince !== undefined) {
    runTime.totalMs += Math.max(0, Date.parse(at) - Date.parse(runTime.runningSince)) || 0;
    delete runTime.runningSince;
  } else if (state.runTime === undefined) {
    return;
  }
  state.runTime = runTime;
}
