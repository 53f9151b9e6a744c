import {
  ASK_USER_TOOL,
  ReducerError,
  allowsMessage,
  applyEvent,
  chainOfScope,
  childrenKeyOf,
  createSessionState,
  isAwaitingDecision,
  isAwaitingInput,
  isCorrectable,
  pausedAtBreakpoint,
  pendingQuestions,
  traitsOf,
  type QueuedMessage,
  type RememberedApproval,
  type RunTime,
  type SessionEvent,
  type SessionEventTraits,
  type SessionInfo,
  type SessionSnapshotData,
  type SessionState,
  type ShareRecord,
} from '@interthought/protocol';
import { SvelteSet } from 'svelte/reactivity';
import { layoutChain, relayoutFrom, type ChainLayout } from './chain-rows.js';
import { animationFrameScheduler, type FrameScheduler } from './frame-scheduler.js';
import { OutgoingMessages } from './outgoing-messages.svelte.js';
import { StepCursor } from './step-cursor.svelte.js';
import { StepView } from './step-view.svelte.js';
import { FULL_SCOPE_RELAYOUT, type SubagentView } from './subagent-view.svelte.js';
import { noScopeChanges, SubagentViews, type ScopeChanges } from './subagent-views.svelte.js';

export type SessionPhase = 'loading' | 'ready' | 'not_found' | 'error';

export interface SessionViewOptions {
  /** How flushes are scheduled: once per animation frame in the browser, by hand in tests. */
  schedule?: FrameScheduler;
  /** Called when an event does not fit the state (a gap in `seq`): the owner should fetch a fresh snapshot. */
  onDesync?: (error: ReducerError) => void;
}

const EMPTY_LAYOUT: ChainLayout = { rows: [], path: [], viewingEarlierBranch: false, rowDepths: [] };

/** A view of the layout that shows fewer rows (a filter by kind): pure, the full layout stays the one relaid out. */
export type RowFilter = (layout: ChainLayout, state: SessionState) => ChainLayout;

/** Told the ids of the steps whose fields a flush changed (a delta, a completion, a snapshot: every step). */
export type StepsChangedListener = (stepIds: ReadonlySet<string> | 'all') => void;

/** Lay out from the top: a change that is not the live chain growing at its tail (the same mark for a sub-agent's rows). */
const FULL_RELAYOUT = FULL_SCOPE_RELAYOUT;

/**
 * How an event changes the rows of the root's timeline: not at all (`undefined`), from the path
 * depth it returns on (the chain grew, or a step there changed status), or everywhere
 * (`FULL_RELAYOUT`). A delta, an approval, usage, the queue and the links change a step or the
 * header, not the rows. A sub-agent's steps change the rows of their scope instead: `scopes`
 * gets the earliest depth of each scope they change (PROTOCOL.md §24.2).
 */
function rowsChangedFrom(traits: SessionEventTraits, event: SessionEvent, state: SessionState, scopes: Map<string, number>): number | undefined {
  if (traits.changesChainShape === 'no' && !traits.changesStepStatus) return undefined;
  const reshapes = traits.changesChainShape === 'reshapes';
  let from: number | undefined;
  let scoped = false;
  for (const stepId of traits.touchesSteps(event)) {
    const step = state.steps.get(stepId);
    if (step === undefined) return FULL_RELAYOUT;
    if (step.scope !== undefined) {
      scopes.set(step.scope, earliestChange(scopes.get(step.scope), reshapes ? FULL_RELAYOUT : step.index)!);
      scoped = true;
      continue;
    }
    from = earliestChange(from, reshapes ? FULL_RELAYOUT : step.index);
  }
  // A reshape that named only a sub-agent's steps leaves the root's rows as they are.
  if (reshapes && from === undefined && !scoped) return FULL_RELAYOUT;
  return from;
}

/** The earliest of two row changes (`undefined`: none; `FULL_RELAYOUT` wins over any depth). */
function earliestChange(a: number | undefined, b: number | undefined): number | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  if (a === FULL_RELAYOUT || b === FULL_RELAYOUT) return FULL_RELAYOUT;
  return Math.min(a, b);
}

/** The latest time a snapshot's steps record: when a finished session last did something. */
function latestActivity(snapshot: SessionSnapshotData): string | undefined {
  let latest: string | undefined;
  let latestMs = Number.NEGATIVE_INFINITY;
  for (const step of snapshot.steps) {
    for (const at of [step.startedAt, step.completedAt, step.correction?.at]) {
      const ms = at === undefined ? Number.NaN : Date.parse(at);
      if (ms > latestMs) {
        latestMs = ms;
        latest = at;
      }
    }
  }
  return latest;
}

/**
 * One session as the page shows it. Incoming events are queued and folded once per animation
 * frame with the protocol reducer (the single definition of a session's state); then only the
 * StepViews those events touched are synced, and the row layout is recomputed only when the
 * shape of the chain changed. A burst of 50 deltas to one step costs one re-render of one card.
 */
export class SessionView {
  readonly sessionId: string;
  #phase = $state<SessionPhase>('loading');
  #loadError = $state.raw<{ code: string; message: string } | null>(null);
  #info = $state.raw<SessionInfo | null>(null);
  #layout = $state.raw<ChainLayout>(EMPTY_LAYOUT);
  /**
   * The folds (a run of thoughts, superseded steps) the user opened, by row key. Kept here, not in
   * the fold's component: on a long chain a row far from the viewport is not mounted, and must
   * come back as the user left it.
   */
  #openFolds = new SvelteSet<string>();
  /** The layout before `#rowFilter`: the one an append relays out from. */
  #fullLayout = $state.raw<ChainLayout>(EMPTY_LAYOUT);
  #rowFilter: RowFilter | null = null;
  readonly #stepsChanged = new Set<StepsChangedListener>();
  /** The alternative picked at each branch point the user navigated (parent key → step id). */
  #selection = $state.raw<ReadonlyMap<string, string>>(new Map());
  /** The session was deleted on the server: what is shown stays, but nothing can change it any more. */
  #deleted = $state(false);
  /** The time of the latest event folded in, for the elapsed-time clock of a finished session. */
  #lastActivityAt = $state<string | undefined>(undefined);
  /** How long the agent has run (`state.runTime`, PROTOCOL.md §11.1), copied when the status changes. */
  #runTime = $state.raw<RunTime | undefined>(undefined);
  /** The user's messages that wait to reach the chain (`state.queued`), copied when they change. */
  #queued = $state.raw<readonly QueuedMessage[]>([]);
  /** The session's share links that were not revoked (`state.shares`), copied when they change. */
  #shares = $state.raw<readonly ShareRecord[]>([]);
  /** The approvals given once for the session (`state.remembered`, PROTOCOL.md §25.3), copied when they change. */
  #remembered = $state.raw<readonly RememberedApproval[]>([]);
  /** Messages sent from this page that the state does not hold yet. */
  readonly outgoing = new OutgoingMessages();
  /** The keyboard's current step: its card is the chain's one tab stop. */
  readonly stepCursor = new StepCursor();
  /** The session's sub-agents, each with its own rows. */
  readonly #subagents = new SubagentViews();

  /**
   * Bumped whenever steps may leave the live chain (a snapshot, a correction, an invalidation),
   * never for an append: which steps are correctable depends on this, not on the whole layout,
   * so a new step does not make every card on a long chain re-check itself.
   */
  #chainEpoch = $state(0);
  #state: SessionState;
  readonly #views = new Map<string, StepView>();
  #queue: SessionEvent[] = [];
  #cancelFrame: (() => void) | null = null;
  readonly #schedule: FrameScheduler;
  readonly #onDesync: ((error: ReducerError) => void) | undefined;

  constructor(sessionId: string, options: SessionViewOptions = {}) {
    this.sessionId = sessionId;
    this.#schedule = options.schedule ?? animationFrameScheduler;
    this.#onDesync = options.onDesync;
    this.#state = createSessionState();
  }

  get phase(): SessionPhase {
    return this.#phase;
  }

  get loadError(): { code: string; message: string } | null {
    return this.#loadError;
  }

  get info(): SessionInfo | null {
    return this.#info;
  }

  get layout(): ChainLayout {
    return this.#layout;
  }

  /** Whether the fold of this row (its key) is open. Reactive. */
  isFoldOpen(rowKey: string): boolean {
    return this.#openFolds.has(rowKey);
  }

  /** Open or close a fold (a run of thoughts, superseded steps) by its row's key. */
  setFoldOpen(rowKey: string, open: boolean): void {
    if (open) this.#openFolds.add(rowKey);
    else this.#openFolds.delete(rowKey);
  }

  /** The layout before a row filter (`setRowFilter`): every row of the displayed chain. */
  get fullLayout(): ChainLayout {
    return this.#fullLayout;
  }

  get selection(): ReadonlyMap<string, string> {
    return this.#selection;
  }

  get deleted(): boolean {
    return this.#deleted;
  }

  get lastActivityAt(): string | undefined {
    return this.#lastActivityAt;
  }

  /** How long the agent has run, from the status history; undefined when the server's snapshot did not say. */
  get runTime(): RunTime | undefined {
    return this.#runTime;
  }

  /** The sub-agent a delegate call started, once it started (PROTOCOL.md §24). */
  subagent(scope: string): SubagentView | undefined {
    return this.#subagents.get(scope);
  }

  /** Every sub-agent of the session, at every depth, in the order they started. */
  get subagents(): ReadonlyMap<string, SubagentView> {
    return this.#subagents.all;
  }

  /** How many sub-agents are running now, at every depth. */
  get subagentsRunning(): number {
    return this.#subagents.running;
  }

  /** Messages that wait for a step boundary (`steer`) or the end of the turn (`queue`), oldest first. */
  get queued(): readonly QueuedMessage[] {
    return this.#queued;
  }

  /** The session's share links that were not revoked, oldest first (the Share dialog lists them). */
  get shares(): readonly ShareRecord[] {
    return this.#shares;
  }

  /** The tools whose calls run without asking for the rest of the session, oldest first (PROTOCOL.md §25.3). */
  get remembered(): readonly RememberedApproval[] {
    return this.#remembered;
  }

  /** Whether the user may send a message now (PROTOCOL.md §20.2: not while a tool call waits, nor once deleted). */
  get acceptsMessages(): boolean {
    return this.#phase === 'ready' && !this.#deleted && allowsMessage(this.#info?.status);
  }

  /** Whether the state holds this step, on the chain or as a queued message (an outgoing message has arrived). */
  holdsMessage(stepId: string): boolean {
    return this.#state.steps.has(stepId) || this.#state.queued.some((message) => message.stepId === stepId);
  }

  /** The step a fork's chain was copied from, if this session is a fork and it holds that step's copy. */
  get forkPoint(): { sessionId: string; stepId: string; index: number } | undefined {
    const origin = this.#info?.forkedFrom;
    if (!origin) return undefined;
    void this.#chainEpoch;
    for (const step of this.#state.steps.values()) {
      if (step.copiedFrom?.stepId === origin.stepId) return { sessionId: origin.sessionId, stepId: origin.stepId, index: step.index };
    }
    return undefined;
  }

  /** The reducer state (read-only to callers): the truth the views are synced from. */
  get state(): Readonly<SessionState> {
    return this.#state;
  }

  /** The `seq` of the last event folded in, queued ones included: the resume cursor. */
  get cursor(): number {
    const last = this.#queue[this.#queue.length - 1];
    return last ? last.seq : this.#state.seq;
  }

  /** Start over from a snapshot. Queued events it already contains are dropped, later ones kept. */
  loadSnapshot(snapshot: SessionSnapshotData): void {
    this.#state = createSessionState(snapshot);
    this.#queue = this.#queue.filter((event) => event.seq > snapshot.seq);
    for (const view of this.#views.values()) {
      const step = this.#state.steps.get(view.stepId);
      if (step) view.sync(step);
    }
    for (const step of this.#state.steps.values()) if (!this.#views.has(step.stepId)) this.#views.set(step.stepId, new StepView(step));
    this.#info = { ...this.#state.session };
    this.#deleted = this.#state.deleted === true;
    this.#syncQueued();
    this.#shares = this.#state.shares;
    this.#syncRemembered();
    for (const step of this.#state.steps.values()) this.#linkAnswer(step.stepId);
    this.#lastActivityAt = latestActivity(snapshot) ?? this.#lastActivityAt;
    this.#runTime = this.#state.runTime === undefined ? undefined : { ...this.#state.runTime };
    this.#chainEpoch++;
    this.#phase = 'ready';
    this.#loadError = null;
    this.#subagents.load(this.#state);
    this.#relayout();
    for (const listener of this.#stepsChanged) listener('all');
    if (this.#queue.length) this.flush();
  }

  /** Show the loading state again while the owner fetches a fresh snapshot (a retry after `fail`). */
  expectSnapshot(): void {
    this.#phase = 'loading';
  }

  /** Show that the session could not be loaded (`SESSION_NOT_FOUND` gets its own designed state). */
  fail(code: string, message: string): void {
    this.#phase = code === 'SESSION_NOT_FOUND' ? 'not_found' : 'error';
    this.#loadError = { code, message };
  }

  /** Queue a live event; it is folded in on the next frame together with everything that arrived meanwhile. */
  enqueue(event: SessionEvent): void {
    this.#queue.push(event);
    this.#cancelFrame ??= this.#schedule(() => {
      this.#cancelFrame = null;
      this.flush();
    });
  }

  /** Fold every queued event now and update the views they touched. */
  flush(): void {
    this.#cancelFrame?.();
    this.#cancelFrame = null;
    const events = this.#queue;
    this.#queue = [];
    if (!events.length || this.#phase !== 'ready') {
      // Before the snapshot there is nothing to fold onto: keep the events for loadSnapshot.
      if (this.#phase !== 'ready') this.#queue = events;
      return;
    }
    const touched = new Set<string>();
    const changes = noScopeChanges();
    let rowsFrom: number | undefined;
    let statusChanged = false;
    let queueChanged = false;
    for (const [i, event] of events.entries()) {
      try {
        applyEvent(this.#state, event);
      } catch (error) {
        if (error instanceof ReducerError && error.code === 'SEQ_REPLAYED') continue;
        this.#queue = events.slice(i + 1);
        if (queueChanged) this.#syncQueued();
        this.#sync(touched, rowsFrom, statusChanged, changes);
        if (error instanceof ReducerError) this.#onDesync?.(error);
        else throw error;
        return;
      }
      this.#lastActivityAt = event.at;
      // A newer server's event only advanced `seq`.
      const traits = traitsOf(event);
      if (traits === undefined) continue;
      for (const stepId of traits.touchesSteps(event)) touched.add(stepId);
      rowsFrom = earliestChange(rowsFrom, rowsChangedFrom(traits, event, this.#state, changes.rows));
      changes.reshaped ||= traits.changesChainShape === 'reshapes';
      changes.started ||= event.type === 'subagent.started';
      // The header shows the summary; `session.deleted` ends the session; either may change which steps can be acted on.
      statusChanged ||= traits.changesSummary || !traits.logged;
      queueChanged ||= traits.changesQueue(event);
      // The reducer replaces its list on each change, so the new list is a new value to show.
      if (traits.changesShares) this.#shares = this.#state.shares;
      if (traits.changesRemembered) this.#syncRemembered();
      if (event.type === 'session.status' && this.#state.runTime !== undefined) this.#runTime = { ...this.#state.runTime };
    }
    if (queueChanged) this.#syncQueued();
    this.#sync(touched, rowsFrom, statusChanged, changes);
  }

  #sync(touched: ReadonlySet<string>, rowsFrom: number | undefined, sessionChanged: boolean, changes: ScopeChanges): void {
    for (const stepId of touched) {
      const step = this.#state.steps.get(stepId);
      if (!step) continue;
      const view = this.#views.get(stepId);
      if (view) view.sync(step);
      else this.#views.set(stepId, new StepView(step));
      this.#linkAnswer(stepId);
    }
    if (touched.size) for (const listener of this.#stepsChanged) listener(touched);
    if (sessionChanged) {
      this.#info = { ...this.#state.session };
      this.#deleted = this.#state.deleted === true;
      this.#chainEpoch++;
    }
    // A session without sub-agents pays nothing here.
    if (this.#state.subagents.size > 0) this.#subagents.sync(this.#state, changes);
    if (rowsFrom === undefined) return;
    // The live chain growing at its tail (the common case, many times a second) re-lays only the tail.
    if (rowsFrom !== FULL_RELAYOUT && this.#selection.size === 0 && !this.#layout.viewingEarlierBranch) {
      this.#setLayout(relayoutFrom(this.#state, this.#fullLayout, rowsFrom));
    } else {
      this.#relayout();
    }
  }

  #syncRemembered(): void {
    this.#remembered = Array.from(this.#state.remembered.values(), (remembered) => ({ ...remembered }));
  }

  /** An answer's observation tells its question's call which step holds the answer (the card shows it, PROTOCOL.md §25.2). */
  #linkAnswer(stepId: string): void {
    const step = this.#state.steps.get(stepId);
    if (step?.kind !== 'observation' || step.tool !== ASK_USER_TOOL || step.parentId === null) return;
    const answer = this.#views.get(stepId);
    if (answer) this.#views.get(step.parentId)?.linkAnswer(answer);
  }

  /** Copy the reducer's queue (it changes rarely: a message sent or arrived) and let the outgoing messages drop what arrived. */
  #syncQueued(): void {
    this.#queued = this.#state.queued.map((message) => ({ ...message }));
    this.outgoing.settle((stepId) => this.holdsMessage(stepId));
  }

  #relayout(): void {
    this.#setLayout(layoutChain(this.#state, this.#selection));
  }

  #setLayout(layout: ChainLayout): void {
    this.#fullLayout = layout;
    const shown = this.#rowFilter ? this.#rowFilter(layout, this.#state) : layout;
    this.#layout = shown;
  }

  /** Show only the rows `filter` keeps (null: every row again, exactly as laid out). */
  setRowFilter(filter: RowFilter | null): void {
    if (filter === this.#rowFilter) return;
    this.#rowFilter = filter;
    this.#setLayout(this.#fullLayout);
  }

  /** Be told which steps each flush changed (find keeps its counts without rescanning the chain); returns the unsubscribe. */
  onStepsChanged(listener: StepsChangedListener): () => void {
    this.#stepsChanged.add(listener);
    return () => this.#stepsChanged.delete(listener);
  }

  /** The view of a step (every step of every branch has one once it is known). */
  view(stepId: string): StepView | undefined {
    return this.#views.get(stepId);
  }

  /** The views of these steps, in order, skipping any not known yet (a fold's rows). */
  views(stepIds: readonly string[]): StepView[] {
    return stepIds.map((id) => this.#views.get(id)).filter((view) => view !== undefined);
  }

  /** Whether the step may be corrected now (PROTOCOL.md §7.1 "What can be corrected"). Reactive through the fields it reads. */
  canCorrect(view: StepView): boolean {
    void this.#chainEpoch;
    if (view.status === 'invalidated' || this.#info?.status === 'cancelled' || this.#deleted) return false;
    return isCorrectable(this.#state, view.stepId);
  }

  /**
   * Whether the step is a tool call waiting for the user's decision now (PROTOCOL.md §19), the one
   * to offer Approve / Edit / Reject on. Reactive; a step that never waited reads nothing else.
   */
  awaitsDecision(view: StepView): boolean {
    if (view.approval?.state !== 'pending') return false;
    void this.#chainEpoch;
    // A call inside a sub-agent waits with its sub-agent, while its siblings may still run (PROTOCOL.md §24.5).
    const waiting = view.scope === undefined ? this.#info?.status === 'waiting' : this.#subagents.get(view.scope)?.status === 'waiting';
    if (!waiting || this.#deleted) return false;
    return isAwaitingDecision(this.#state, view.stepId);
  }

  /**
   * Whether the step is an `ask_user` call whose question waits for the user's answer now
   * (PROTOCOL.md §25.1), the one to show the question card's form on. Reactive.
   */
  awaitsAnswer(view: StepView): boolean {
    if (view.question?.state !== 'pending') return false;
    void this.#chainEpoch;
    if (this.#deleted) return false;
    return isAwaitingInput(this.#state, view.stepId);
  }

  /** The question the session (or one of its sub-agents) waits on, the session's first (PROTOCOL.md §25.1). */
  get awaitingQuestion(): StepView | undefined {
    void this.#chainEpoch;
    if (this.#deleted) return undefined;
    const step = pendingQuestions(this.#state)[0];
    return step === undefined ? undefined : this.#views.get(step.stepId);
  }

  /** The step a breakpoint stopped the session at, while it is still there (PROTOCOL.md §25.5). */
  get stoppedAt(): StepView | undefined {
    void this.#chainEpoch;
    if (this.#deleted) return undefined;
    const step = pausedAtBreakpoint(this.#state);
    return step === undefined ? undefined : this.#views.get(step.stepId);
  }

  /**
   * The tool call the session waits on, if it waits for the user: the root's (its run ended there),
   * else the first waiting sub-agent's, which may wait while its siblings still run.
   */
  get awaitingStep(): StepView | undefined {
    void this.#chainEpoch;
    if (this.#deleted) return undefined;
    if (this.#info?.status === 'waiting') {
      const step = this.#awaitingOn(this.#state.chain);
      if (step) return step;
    }
    for (const subagent of this.#subagents.all.values()) {
      if (subagent.status !== 'waiting') continue;
      const step = this.#awaitingOn(chainOfScope(this.#state, subagent.scope) ?? []);
      if (step) return step;
    }
    return undefined;
  }

  #awaitingOn(chain: readonly string[]): StepView | undefined {
    // The waiting call ended its run, so it is at or near the head of its chain.
    for (let index = chain.length - 1; index >= 0; index--) {
      const stepId = chain[index]!;
      if (isAwaitingDecision(this.#state, stepId)) return this.#views.get(stepId);
    }
    return undefined;
  }

  /** Look at another alternative at a branch point; picking the live one returns to the live chain there. */
  selectBranch(stepId: string): void {
    const step = this.#state.steps.get(stepId);
    if (!step) return;
    if (step.scope !== undefined) {
      // Each sub-agent keeps its own picks: its branches are apart from every other chain's.
      const live = chainOfScope(this.#state, step.scope)?.[step.index] === stepId;
      this.#subagents.get(step.scope)?.select(this.#state, childrenKeyOf(step), stepId, live, step.index);
      return;
    }
    const parentKey = step.parentId ?? '';
    const next = new Map(this.#selection);
    if (this.#state.chain[step.index] === stepId) next.delete(parentKey);
    else next.set(parentKey, stepId);
    // Picks below the new one belonged to the branch being left.
    for (const [key, picked] of next) {
      const pickedStep = this.#state.steps.get(picked);
      if (pickedStep && pickedStep.index > step.index) next.delete(key);
    }
    this.#selection = next;
    this.#relayout();
  }

  /** Unfold every sub-agent panel around a step, so it is on the page to be focused (the call a sub-agent waits on). */
  reveal(stepId: string): void {
    this.#subagents.reveal(this.#state, stepId);
  }

  /** Leave every earlier branch of a sub-agent's chain and show its live chain again. */
  showLiveScope(scope: string): void {
    this.#subagents.get(scope)?.showLiveChain(this.#state);
  }

  /** Leave every earlier branch and show the live chain again. */
  showLiveChain(): void {
    if (this.#selection.size === 0) return;
    this.#selection = new Map();
    this.#relayout();
  }

  /** Stop any scheduled flush (the page is going away). */
  dispose(): void {
    this.#cancelFrame?.();
    this.#cancelFrame = null;
    this.#queue = [];
  }
}
