import { nanoid } from 'nanoid';
import { allowsMessage, decisionRefusal, toSnapshot, type ApprovalDecision, type ApprovalPolicy, type CorrectionAccepted, type MessageAccepted, type SessionCreated, type SessionDeletedEvent, type SessionInfo, type SessionsWatching, type SessionSnapshotData, type ShareRecord, type Step } from '@interthought/protocol';
import type { Agent, ModelCallReport } from '@interthought/agent';
import type { AgentRegistry } from '@interthought/agent';
import type { ToolRegistry } from '../../tools/tool-registry.js';
import { AgentRun, type RunDeps } from '../run/agent-run.js';
import { ApprovalDeadlines } from '../run/approval-deadlines.js';
import { appendQueuedMessage, appendUserMessage, applyQueuedMessages, atStepBoundary, copiedPath } from '../commands/conversation.js';
import { TIMEOUT_DECIDER, appendApprovalRequest, appendDecision, appendRefusalObservation, checkDecision, pendingApproval, timeoutRejection } from '../commands/approvals.js';
import { appendCorrection, checkCorrection } from '../commands/correction.js';
import type { EventStore, SessionPage } from '../persistence/event-store.js';
import { ACTIVE_STATUSES, LiveSession } from './live-session.js';
import { Outbox } from '../persistence/outbox.js';
import { announceDeletion, deletedEvent } from '../fanout/session-deletion.js';
import { SessionError, notFound } from '../session-error.js';
import { SessionListWatchers } from '../fanout/session-list-watchers.js';
import { loadSession, recoverInterrupted, stateBeforeFirstEvent } from '../persistence/session-loader.js';
import { readSessionExport, type SessionExport } from '../transfer/session-export.js';
import { importedSession, writeImport, type ParsedImport } from '../transfer/session-import.js';
import type { Quota } from '../commands/quota.js';
import type { Peer, ReplyTo } from '../fanout/peer.js';
import type {
  Actor,
  CorrectStepInput,
  CorrectionResult,
  CreateSessionInput,
  DecideInput,
  ForkInput,
  ListScope,
  MessageInput,
  MessageResult,
  SessionAccessFacts,
  SessionCoreStats,
  SessionService,
  ShareInput,
  UnshareInput,
} from '../session-service.js';
import { listInScope } from '../fanout/session-list-scope.js';
import { checkMessageMode, checkMessageText, checkOptions, checkReason, checkTask } from '../commands/session-input.js';
import { checkStatusRequest } from '../commands/status-rules.js';
import { PausedRunExpiry } from '../run/paused-run-expiry.js';
import { SessionTable } from './session-table.js';
import { Subscriptions } from '../fanout/subscriptions.js';
import type { PriceTable } from '../run/model-prices.js';
import { budgetReached, budgetStopMessage, checkBudget, type BudgetUse } from '../commands/token-budget.js';
import { UsageTotals, appendUsage } from '../run/usage-ledger.js';

export interface SessionManagerDeps {
  store: EventStore;
  agents: AgentRegistry;
  tools: ToolRegistry;
  /** Pause between streamed tokens when a session sets no `tokenDelayMs` (default 0). */
  defaultTokenDelayMs?: number;
  /** Running or paused sessions allowed at once (default 1000). */
  maxActiveSessions?: number;
  /** A run paused this long is stopped and its session marked interrupted, freeing its slot (default 15 min). */
  pausedRunTtlMs?: number;
  now?: () => Date;
  /** Session and step ids (default nanoid). */
  newId?: () => string;
  /** Finished, unwatched sessions kept in memory before they are dropped and reloaded on demand (default 100). */
  idleSessionCacheSize?: number;
  /**
   * Mark the sessions a previous process left `running` as interrupted at start (default true).
   * A cluster node does not: other nodes run those sessions, and the takeover sweep finds the
   * ones whose owner died.
   */
  recoverInterrupted?: boolean;
  /** The approval policy of sessions created without one (`INTERTHOUGHT_APPROVE`); absent: tools that change something wait. */
  defaultApprove?: ApprovalPolicy;
  /**
   * A pending approval's deadline passed (`options.approvalTimeoutMs`). Default: this core rejects
   * it. A cluster node routes the rejection like any command, to whichever node may run the session.
   */
  onApprovalTimeout?: (sessionId: string, stepId: string) => void;
  /** Where failures the core survives are reported (default console.error). */
  reportError?: (context: string, error: unknown) => void;
  /** Prices of models by name, to cost their calls (INTERTHOUGHT_PRICES; PROTOCOL.md §22.2). */
  prices?: PriceTable;
  /** Every session's token budget, which `options.maxTokens` may lower (INTERTHOUGHT_MAX_TOKENS_PER_SESSION; §22.3). */
  maxTokensPerSession?: number;
}

/** `by` of a decision made through a caller that named nobody (a direct call of the core). */
const UNKNOWN_DECIDER = 'unknown';

/** Statuses in which a session that reaches its token budget is stopped: those with a run, or a pending call that would start one. */
const BUDGET_STOPPABLE: ReadonlySet<string> = new Set(['running', 'paused', 'waiting']);

/** How long `shutdown` waits for aborted agents to return before it writes and stops anyway. */
const SHUTDOWN_GRACE_MS = 5_000;

function reportToConsole(context: string, error: unknown): void {
  console.error(`[session-core] ${context}:`, error);
}

/**
 * The session core: every session's state machine, its corrections, its runs and its
 * subscribers, behind the plain-call `SessionService`. Sessions live in a Map and are loaded
 * lazily from the store the first time an id is touched; finished unwatched ones are dropped
 * again beyond a small cache.
 */
export class SessionManager implements SessionService {
  /** Settles once the sessions a previous process left running are marked interrupted; every command waits for it. */
  readonly ready: Promise<void>;
  readonly #store: EventStore;
  readonly #agents: AgentRegistry;
  readonly #tools: ToolRegistry;
  readonly #maxActive: number;
  readonly #pausedRuns: PausedRunExpiry<LiveSession>;
  readonly #deadlines: ApprovalDeadlines;
  readonly #defaultApprove: ApprovalPolicy | undefined;
  readonly #prices: PriceTable | undefined;
  readonly #maxTokensPerSession: number | undefined;
  readonly #now: () => Date;
  readonly #newId: () => string;
  readonly #runDeps: RunDeps;
  readonly #reportError: (context: string, error: unknown) => void;
  readonly #outbox: Outbox<LiveSession>;
  readonly #sessions: SessionTable;
  readonly #subscriptions: Subscriptions;
  readonly #listWatchers: SessionListWatchers;
  /** Loads from the store in progress, so two requests for one stored session share one `LiveSession`. */
  readonly #loading = new Map<string, Promise<LiveSession | undefined>>();
  #recovered: readonly string[] = [];
  #shutdown: Promise<void> | undefined;

  /** What every model call run here used (metrics). */
  readonly #usage = new UsageTotals();

  constructor(deps: SessionManagerDeps) {
    this.#store = deps.store;
    this.#agents = deps.agents;
    this.#tools = deps.tools;
    this.#maxActive = deps.maxActiveSessions ?? 1000;
    this.#pausedRuns = new PausedRunExpiry(deps.pausedRunTtlMs ?? 15 * 60_000, (session) => this.#expirePausedRun(session));
    this.#sessions = new SessionTable(deps.idleSessionCacheSize ?? 100);
    this.#now = deps.now ?? (() => new Date());
    this.#newId = deps.newId ?? (() => nanoid());
    this.#runDeps = {
      tools: deps.tools,
      newId: this.#newId,
      defaultTokenDelayMs: deps.defaultTokenDelayMs ?? 0,
      awaitApproval: (run, step) => this.#awaitApproval(run, step),
      atStepBoundary: (run) => this.#steerAtBoundary(run),
      continueAfterTurn: (run) => this.#continueWithQueued(run),
      recordUsage: (run, report) => this.#recordUsage(run, report),
    };
    this.#prices = deps.prices;
    this.#maxTokensPerSession = deps.maxTokensPerSession;
    this.#reportError = deps.reportError ?? reportToConsole;
    this.#defaultApprove = deps.defaultApprove;
    const onApprovalTimeout = deps.onApprovalTimeout ?? ((sessionId, stepId) => void this.#rejectForTimeout(sessionId, stepId));
    this.#deadlines = new ApprovalDeadlines(onApprovalTimeout, this.#now);
    this.#listWatchers = new SessionListWatchers(this.#reportError);
    this.#subscriptions = new Subscriptions(deps.store);
    this.#outbox = new Outbox<LiveSession>({
      store: deps.store,
      reportError: this.#reportError,
      onWritten: ({ targets, summaries }) => this.#afterWrite(targets, summaries),
      onWriteFailed: () => this.#subscriptions.refuseWaiting(),
      onLost: (sessions) => {
        for (const session of sessions) this.evict(session.id, 'the store refused its events: another node owns it now');
      },
    });
    this.#runDeps.backlog = this.#outbox;
    const recovering =
      deps.recoverInterrupted === false
        ? Promise.resolve([])
        : recoverInterrupted(deps.store, this.#now, (id) => this.#sessions.has(id)).then(async (ids) => {
            await this.#armStoredDeadlines();
            return ids;
          });
    this.ready = recovering.then(
      (ids) => {
        this.#recovered = ids;
      },
      (error: unknown) => this.#reportError('marking the runs of a previous process interrupted failed', error),
    );
  }

  /** Sessions this process marked `interrupted` at startup (their run died with the previous process); complete once `ready` settled. */
  get recoveredSessionIds(): readonly string[] {
    return this.#recovered;
  }

  /** Running or paused sessions in memory (what `maxActiveSessions` caps). */
  get activeSessionCount(): number {
    return this.#sessions.activeCount();
  }

  get stats(): SessionCoreStats {
    return { activeSessions: this.#sessions.activeCount(), sessionsInMemory: this.#sessions.size, commits: this.#outbox.stats, usage: this.#usage };
  }

  subscriptionCount(peer: Peer): number {
    return this.#subscriptions.countFor(peer);
  }

  isSubscribed(peer: Peer, sessionId: string): boolean {
    return this.#subscriptions.watches(peer, sessionId);
  }

  async create(input: CreateSessionInput, reply?: ReplyTo): Promise<SessionInfo> {
    await this.#open();
    const task = checkTask(input.task);
    const checked = checkOptions(input.options);
    // The default is recorded with the session: every node and every restart applies the same policy.
    const options = checked.approve === undefined && this.#defaultApprove !== undefined ? { ...checked, approve: this.#defaultApprove } : checked;
    const agentName = input.agent ?? this.#agents.defaultName;
    const agent = this.#requireAgent(agentName);
    this.#checkCapacity(input.quota);
    const info: SessionInfo = { sessionId: this.#newId(), task, agent: agentName, status: 'running', revision: 0, createdAt: this.#now().toISOString() };
    if (input.ownedBy !== undefined) info.owner = { id: input.ownedBy.id, name: input.ownedBy.name };
    await this.#store.createSession({ info, options, lastSeq: 0 });
    // From here on the turn is synchronous: the answer and the subscription precede every event.
    this.#listWatchers.changed(info);
    const session = this.#sessions.add(this.#live(stateBeforeFirstEvent(info), options));
    session.quotaKey = input.quota?.key;
    if (reply !== undefined) {
      const created: SessionCreated = { type: 'session.created', session: session.info };
      if (reply.requestId !== undefined) created.requestId = reply.requestId;
      reply.peer.send(JSON.stringify(created));
      this.#subscriptions.openFromStart(session, reply.peer);
    }
    session.setStatus('running');
    AgentRun.start(session, agent, this.#runDeps);
    return session.info;
  }

  async subscribe(sessionId: string, reply: ReplyTo, afterSeq?: number): Promise<void> {
    const session = await this.#require(sessionId);
    await this.#subscriptions.open(session, reply, afterSeq);
    this.#sessions.inUse(session.id);
  }

  async unsubscribe(sessionId: string, peer: Peer): Promise<void> {
    const session = this.#sessions.get(sessionId);
    if (session === undefined) {
      // Not in memory means nobody watches it; only its existence needs checking.
      if ((await this.#store.getSession(sessionId)) === undefined) throw notFound(sessionId);
      return;
    }
    this.#subscriptions.remove(session, peer);
    this.#sessions.noteIfIdle(session);
  }

  detach(peer: Peer): void {
    this.#listWatchers.remove(peer);
    for (const session of this.#subscriptions.detach(peer)) this.#sessions.noteIfIdle(session);
  }

  async watchList(reply: ReplyTo, limit: number, scope?: ListScope): Promise<SessionInfo[]> {
    const { peer } = reply;
    // Registered before the page is read, with its changes held: one stored meanwhile reaches
    // the peer after the page, so the page never overwrites something newer.
    this.#listWatchers.hold(peer, scope);
    let page: SessionPage;
    try {
      page = await this.list(scope === undefined ? { limit } : { limit, scope });
    } catch (error) {
      this.#listWatchers.remove(peer);
      throw error;
    }
    const watching: SessionsWatching = { type: 'sessions.watching', sessions: page.sessions };
    if (reply.requestId !== undefined) watching.requestId = reply.requestId;
    try {
      peer.send(JSON.stringify(watching));
    } catch (error) {
      // Peer.send must not throw; one that does is reported and still released, so nothing piles up for it.
      this.#reportError(`peer ${peer.id} threw from send`, error);
    }
    this.#listWatchers.release(peer);
    return page.sessions;
  }

  unwatchList(peer: Peer): void {
    this.#listWatchers.remove(peer);
  }

  async correct(input: CorrectStepInput, reply?: ReplyTo): Promise<CorrectionResult> {
    await this.#open();
    const session = await this.#require(input.sessionId);
    // From here on the turn is synchronous: checked and applied against the same state, as a whole.
    const target = checkCorrection(session, input, this.#tools);
    checkBudget(session.state, session.options, this.#maxTokensPerSession);
    const agent = this.#requireAgent(session.state.session.agent);
    const reviving = !ACTIVE_STATUSES.has(session.status);
    if (reviving) this.#checkCapacity(input.quota);
    // A correction of the call that waits for approval is its edit: the decision is recorded first, and the edited call runs.
    const editing = decisionRefusal(session.state, target.stepId) === undefined;
    session.run?.abort('a step was corrected');
    this.#pausedRuns.disarm(session);
    this.#deadlines.disarm(session.id);
    if (reviving) session.quotaKey = input.quota?.key;
    const by = input.by ?? UNKNOWN_DECIDER;
    if (editing) appendDecision(session, { step: target, decision: 'edited', by, ...(input.byName === undefined ? {} : { byName: input.byName }) });
    const newStepId = this.#newId();
    const revision = appendCorrection(session, {
      target,
      newStepId,
      content: input.content,
      ...(input.note === undefined ? {} : { note: input.note }),
      ...(input.by === undefined ? {} : { by: input.by }),
      ...(input.byName === undefined ? {} : { byName: input.byName }),
      ...(editing ? { approval: { state: 'edited', by, ...(input.byName === undefined ? {} : { byName: input.byName }), at: session.nextBase().at } } : {}),
    });
    const result: CorrectionResult = { sessionId: session.id, stepId: target.stepId, newStepId, revision };
    if (reply !== undefined) {
      // Its events are sent only once written, after this turn: the answer always comes first.
      const accepted: CorrectionAccepted = { type: 'correction.accepted', ...result };
      if (reply.requestId !== undefined) accepted.requestId = reply.requestId;
      reply.peer.send(JSON.stringify(accepted));
    }
    if (reviving) session.setStatus('running');
    this.#startRun(session, agent);
    this.#sessions.inUse(session.id);
    return result;
  }

  async approve(input: DecideInput, reply?: ReplyTo): Promise<void> {
    await this.#decide(input, 'approved', reply);
  }

  async reject(input: DecideInput, reply?: ReplyTo): Promise<void> {
    if (input.reason !== undefined) checkReason(input.reason);
    await this.#decide(input, 'rejected', reply);
  }

  async message(input: MessageInput, reply?: ReplyTo): Promise<MessageResult> {
    await this.#open();
    const text = checkMessageText(input.text);
    const mode = checkMessageMode(input.mode);
    const session = await this.#require(input.sessionId);
    // From here on the turn is synchronous: the answer precedes the events, and nothing comes between them.
    if (!allowsMessage(session.status)) {
      throw new SessionError(
        'INVALID_STATE',
        `Session ${session.id} waits for a decision on a tool call: approve or reject it first (a rejection's reason tells the agent what to do instead).`,
      );
    }
    checkBudget(session.state, session.options, this.#maxTokensPerSession);
    const stepId = this.#newId();
    const runs = session.run !== undefined || ACTIVE_STATUSES.has(session.status);
    if (!runs) {
      // A finished session (or a fork): a new turn with the whole chain as context.
      const agent = this.#requireAgent(session.state.session.agent);
      this.#checkCapacity(input.quota);
      session.quotaKey = input.quota?.key;
      this.#answerMessage(reply, { sessionId: session.id, stepId, queued: false });
      session.finishDanglingHead();
      applyQueuedMessages(session);
      appendUserMessage(session, stepId, text, input);
      session.setStatus('running');
      this.#startRun(session, agent);
      this.#sessions.inUse(session.id);
      return { sessionId: session.id, stepId, queued: false };
    }
    const run = session.run;
    if (mode === 'steer' && run !== undefined && session.state.queued.length === 0 && atStepBoundary(session)) {
      // Between steps: the message goes on now, and a new run takes it into account.
      const agent = this.#requireAgent(session.state.session.agent);
      this.#answerMessage(reply, { sessionId: session.id, stepId, queued: false });
      run.abort('the user sent a message');
      appendUserMessage(session, stepId, text, input);
      this.#startRun(session, agent);
      return { sessionId: session.id, stepId, queued: false };
    }
    this.#answerMessage(reply, { sessionId: session.id, stepId, queued: true });
    appendQueuedMessage(session, stepId, text, mode, input);
    return { sessionId: session.id, stepId, queued: true };
  }

  async fork(input: ForkInput, reply?: ReplyTo): Promise<SessionInfo> {
    await this.#open();
    const source = await this.#require(input.sessionId);
    return this.forkFrom(source.state, source.options, input.stepId, reply, input.ownedBy);
  }

  /**
   * Fork from a source state the caller read (a cluster node reads the source from the shared
   * store, whoever runs it): the fork is created, and for now run, here.
   */
  async forkFrom(source: LiveSession['state'], sourceOptions: LiveSession['options'], stepId: string, reply?: ReplyTo, ownedBy?: Actor): Promise<SessionInfo> {
    this.#checkOpen();
    const sourceId = source.session.sessionId;
    const copies = copiedPath(source, stepId, this.#newId);
    const { task, agent } = source.session;
    const info: SessionInfo = {
      sessionId: this.#newId(),
      task,
      agent,
      status: 'idle',
      revision: 0,
      createdAt: this.#now().toISOString(),
      forkedFrom: { sessionId: sourceId, stepId },
    };
    // A fork belongs to whoever forked it, whoever owns the source (PROTOCOL.md §21.2).
    if (ownedBy !== undefined) info.owner = { id: ownedBy.id, name: ownedBy.name };
    const options = { ...sourceOptions };
    await this.#store.createSession({ info, options, lastSeq: 0 });
    // From here on the turn is synchronous: the answer and the subscription precede every event.
    this.#listWatchers.changed(info);
    const fork = this.#sessions.add(this.#live(stateBeforeFirstEvent(info), options));
    if (reply !== undefined) {
      // The fork's summary as stored: `idle` (its state says so once its first event is folded, right after).
      const created: SessionCreated = { type: 'session.created', session: { ...info } };
      if (reply.requestId !== undefined) created.requestId = reply.requestId;
      reply.peer.send(JSON.stringify(created));
      this.#subscriptions.openFromStart(fork, reply.peer);
    }
    fork.setStatus('idle');
    if (copies.length > 0) fork.append({ type: 'steps.copied', ...fork.nextBase(), steps: copies, from: { sessionId: sourceId, stepId } });
    this.#sessions.noteIfIdle(fork);
    return { ...info };
  }

  async pause(sessionId: string, reply?: ReplyTo): Promise<void> {
    await this.#open();
    const session = await this.#require(sessionId);
    checkStatusRequest(sessionId, 'pause', session.status);
    session.setStatus('paused', reply ? { reply } : {});
    this.#pausedRuns.arm(session);
  }

  async resume(sessionId: string, reply?: ReplyTo): Promise<void> {
    await this.#open();
    const session = await this.#require(sessionId);
    checkStatusRequest(sessionId, 'resume', session.status);
    checkBudget(session.state, session.options, this.#maxTokensPerSession);
    this.#pausedRuns.disarm(session);
    if (session.run !== undefined) {
      session.setStatus('running', reply ? { reply } : {});
      return;
    }
    // No run (interrupted, or paused by a previous process): continue from the head of the chain.
    const agent = this.#requireAgent(session.state.session.agent);
    if (!ACTIVE_STATUSES.has(session.status)) {
      this.#checkCapacity(reply?.peer.quota);
      session.quotaKey = reply?.peer.quota?.key;
    }
    session.finishDanglingHead();
    session.setStatus('running', reply ? { reply } : {});
    this.#startRun(session, agent);
    this.#sessions.inUse(session.id);
  }

  async cancel(sessionId: string, reply?: ReplyTo): Promise<void> {
    await this.#open();
    const session = await this.#require(sessionId);
    checkStatusRequest(sessionId, 'cancel', session.status);
    this.#pausedRuns.disarm(session);
    this.#deadlines.disarm(session.id);
    session.run?.abort('the session was cancelled');
    session.setStatus('cancelled', reply ? { reply } : {});
    // Messages still waiting go on the chain, as the user's turns, without a run: nothing is lost.
    if (session.state.queued.length > 0) {
      session.finishDanglingHead();
      applyQueuedMessages(session);
    }
  }

  /**
   * Durable first, then announced: the session stops taking events, what it has is written and
   * sent, the store deletes it, and only then do its watchers get `session.deleted`, after
   * everything else they got.
   */
  async delete(sessionId: string, reply?: ReplyTo): Promise<SessionDeletedEvent> {
    await this.#open();
    if (typeof sessionId !== 'string') throw notFound(sessionId);
    const live = this.#sessions.get(sessionId) ?? (await this.#loading.get(sessionId));
    // A session not in memory has no watchers, no run and nothing unwritten: its record is enough.
    const lastSeq = live?.state.seq ?? (await this.#store.getSession(sessionId))?.lastSeq;
    if (lastSeq === undefined || live?.deleted === true) throw notFound(sessionId);
    if (live !== undefined && !(await this.#outbox.flush())) {
      throw new SessionError('INTERNAL', "The session's latest events could not be written yet, so it was not deleted; try again shortly.");
    }
    try {
      await this.#store.deleteSession(sessionId);
    } catch (error) {
      this.#reportError(`deleteSession failed for session ${sessionId}`, error);
      throw new SessionError('INTERNAL', `Session ${sessionId} could not be deleted from the store; it is unchanged. Try again.`);
    }
    let watchers = new Map<Peer, number>();
    if (live !== undefined) {
      // Nothing is appended from now on; what the run queued while the store deleted goes nowhere.
      live.deleted = true;
      live.run?.abort('the session was deleted');
      this.#pausedRuns.disarm(live);
      this.#deadlines.disarm(live.id);
      this.#outbox.discard(live);
      watchers = this.#subscriptions.removeSession(live);
      this.#sessions.remove(live);
    }
    // After the last event anyone got: what the run queued meanwhile was discarded, never sent.
    const deleted = deletedEvent(sessionId, live?.writtenSeq ?? lastSeq, this.#now().toISOString());
    announceDeletion(deleted, watchers, reply, this.#reportError);
    this.#listWatchers.removed(sessionId);
    return deleted;
  }

  /** Resolves once everything queued so far is written and sent (false if a write failed meanwhile). */
  flushed(): Promise<boolean> {
    return this.#outbox.flush();
  }

  /**
   * Drop a session from memory, telling nobody: its run is aborted, nothing more is appended to it,
   * its subscribers are detached. For a session this process must stop running because another
   * one owns it now (cluster mode); the store keeps it, and a later request loads it again.
   */
  evict(sessionId: string, why: string): void {
    const session = this.#sessions.get(sessionId);
    if (session === undefined) return;
    session.run?.abort(why);
    this.#pausedRuns.disarm(session);
    session.retire();
    this.#subscriptions.removeSession(session);
    this.#sessions.remove(session);
  }

  /**
   * A session's summary changed somewhere (cluster mode: on any node). When it waits for a decision
   * with a timeout, this process keeps the deadline's clock too, read from the stored log: a
   * waiting session has no owner, so the node that set the clock may die with it. When it no longer
   * waits, that clock stops. Never throws.
   */
  async followDeadline(info: SessionInfo): Promise<void> {
    if (info.status !== 'waiting') {
      // A session running here keeps its own clock (it is disarmed as its call is decided).
      if (this.#sessions.get(info.sessionId) === undefined) this.#deadlines.disarm(info.sessionId);
      return;
    }
    try {
      const loaded = await loadSession(this.#store, info.sessionId);
      if (loaded !== undefined && loaded.state.session.status === 'waiting') this.#armDeadlineOf(loaded.state, loaded.options);
    } catch (error) {
      this.#reportError(`reading waiting session ${info.sessionId} failed`, error);
    }
  }

  /** Typed as the snapshot fields (the contract's `Omit` of a loose zod type erases them). */
  async snapshot(sessionId: string): Promise<SessionSnapshotData | undefined> {
    const session = await this.#find(sessionId);
    return session ? toSnapshot(session.state) : undefined;
  }

  async exportSession(sessionId: string): Promise<SessionExport> {
    await this.ready;
    // The events written so far: the outbox writes asynchronously.
    await this.#outbox.flush();
    const exported = await readSessionExport(this.#store, sessionId);
    if (exported === undefined) throw notFound(sessionId);
    return exported;
  }

  /** Written straight to the store, not held in memory: the session is loaded the first time it is touched, like any stored one. */
  async importSession(parsed: ParsedImport, ownedBy?: Actor): Promise<SessionInfo> {
    await this.#open();
    const stored = importedSession(parsed, this.#newId(), this.#now().toISOString(), ownedBy);
    await writeImport(this.#store, stored);
    this.#listWatchers.changed(stored.record.info);
    this.#armDeadlineOf(stored.state, stored.record.options);
    return stored.record.info;
  }

  async list(options: { limit: number; before?: string; scope?: ListScope }): Promise<SessionPage> {
    await this.ready;
    // Summaries are written with their events; writing what is queued makes the list current.
    await this.#outbox.flush();
    return listInScope(this.#store, options);
  }

  async accessFacts(sessionId: string): Promise<SessionAccessFacts | undefined> {
    const session = await this.#find(sessionId);
    if (session === undefined || session.deleted) return undefined;
    return { owner: session.state.session.owner, shares: session.state.shares };
  }

  /** Written before it resolves: a link is handed out only once its record is in the log. */
  async share(input: ShareInput): Promise<ShareRecord> {
    await this.#open();
    const session = await this.#require(input.sessionId);
    const share: ShareRecord = { shareId: `sh_${this.#newId()}`, role: input.role, createdAt: this.#now().toISOString(), by: input.by };
    if (input.expiresAt !== undefined) share.expiresAt = input.expiresAt;
    if (input.byName !== undefined) share.byName = input.byName;
    session.append({ type: 'share.created', ...session.nextBase(), share });
    await this.#written();
    return share;
  }

  async unshare(input: UnshareInput): Promise<void> {
    await this.#open();
    const session = await this.#require(input.sessionId);
    if (!session.state.shares.some((share) => share.shareId === input.shareId)) {
      throw new SessionError('INVALID_STATE', `Session ${session.id} has no share link ${input.shareId}: it was revoked already, or never made.`);
    }
    session.append({ type: 'share.revoked', ...session.nextBase(), shareId: input.shareId, by: input.by, ...(input.byName === undefined ? {} : { byName: input.byName }) });
    await this.#written();
  }

  async sharingKey(): Promise<string> {
    await this.ready;
    return this.#store.sharingKey();
  }

  /** Resolves once what was queued so far is written; `INTERNAL` when the write failed. */
  async #written(): Promise<void> {
    if (await this.#outbox.flush()) return;
    throw new SessionError('INTERNAL', 'The change could not be written to the store yet; try again shortly.');
  }

  shutdown(): Promise<void> {
    this.#shutdown ??= this.#stop();
    return this.#shutdown;
  }

  async #stop(): Promise<void> {
    await this.ready;
    this.#pausedRuns.stop();
    this.#deadlines.stop();
    const settling: Promise<void>[] = [];
    for (const session of this.#sessions.values()) {
      const run = session.run;
      if (run === undefined) continue;
      settling.push(run.settled);
      run.abort('the server is shutting down');
    }
    await this.#outbox.flush();
    let timer: NodeJS.Timeout | undefined;
    const grace = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, SHUTDOWN_GRACE_MS);
      timer.unref();
    });
    await Promise.race([Promise.allSettled(settling), grace]);
    clearTimeout(timer);
    await this.#outbox.flush();
    this.#outbox.close();
  }

  /** Wait for start-up recovery, and refuse once shutting down. */
  async #open(): Promise<void> {
    this.#checkOpen();
    await this.ready;
    this.#checkOpen();
  }

  #checkOpen(): void {
    if (this.#shutdown !== undefined) throw new SessionError('INTERNAL', 'The server is shutting down; try again once it is back.');
  }

  #requireAgent(name: string): Agent {
    const agent = this.#agents.get(name);
    if (agent === undefined) {
      const known = this.#agents.list().map((listing) => listing.name);
      throw new SessionError('AGENT_NOT_FOUND', `Unknown agent "${name}". Known agents: ${known.length > 0 ? known.join(', ') : '(none)'}.`);
    }
    const availability = agent.availability();
    if (!availability.available) throw new SessionError('AGENT_UNAVAILABLE', `Agent "${name}" is unavailable: ${availability.reason}`);
    return agent;
  }

  /** Room for one more active session on the server, and for `quota` under its own cap. */
  #checkCapacity(quota?: Quota): void {
    if (this.activeSessionCount >= this.#maxActive) {
      throw new SessionError(
        'LIMIT_EXCEEDED',
        `The server already has ${this.#maxActive} running or paused sessions; cancel one or wait for one to finish.`,
      );
    }
    if (quota === undefined || this.#sessions.activeCount(quota.key) < quota.maxActiveSessions) return;
    throw new SessionError(
      'LIMIT_EXCEEDED',
      `You already have ${quota.maxActiveSessions} running or paused sessions on this server (the limit of ${quota.whose}); cancel one or wait for one to finish.`,
    );
  }

  /** A run paused for the whole TTL: stopped, and the session marked interrupted (resumable), so its slot is free. */
  #expirePausedRun(session: LiveSession): void {
    if (session.status !== 'paused' || session.deleted) return;
    session.run?.abort('the session stayed paused too long');
    session.setStatus('interrupted', { detail: 'Paused for too long: the run was stopped to free its slot. Resume to continue.' });
  }

  async #require(sessionId: string): Promise<LiveSession> {
    const session = await this.#find(sessionId);
    if (session === undefined) throw notFound(sessionId);
    return session;
  }

  #live(state: LiveSession['state'], options: LiveSession['options']): LiveSession {
    return new LiveSession(state, options, (entry) => this.#outbox.enqueue(entry), this.#now);
  }

  /** The live session, or the stored one loaded into memory the first time it is touched. */
  async #find(sessionId: string): Promise<LiveSession | undefined> {
    if (typeof sessionId !== 'string') return undefined;
    const live = this.#sessions.get(sessionId);
    if (live !== undefined) return live;
    await this.ready;
    let loading = this.#loading.get(sessionId);
    if (loading === undefined) {
      loading = this.#load(sessionId).finally(() => this.#loading.delete(sessionId));
      this.#loading.set(sessionId, loading);
    }
    return loading;
  }

  async #load(sessionId: string): Promise<LiveSession | undefined> {
    const loaded = await loadSession(this.#store, sessionId);
    // Created or loaded by another request meanwhile: that one is the session.
    const current = this.#sessions.get(sessionId);
    if (current !== undefined) return current;
    if (loaded === undefined) return undefined;
    const session = this.#sessions.add(this.#live(loaded.state, loaded.options));
    // Stored as running but run by no one here: a run the startup recovery did not see.
    if (session.status === 'running') session.setStatus('interrupted');
    this.#armDeadline(session);
    this.#sessions.noteIfIdle(session, { keep: true });
    return session;
  }

  /** `message.accepted`, sent before the events the message causes. */
  #answerMessage(reply: ReplyTo | undefined, result: MessageResult): void {
    if (reply === undefined) return;
    const accepted: MessageAccepted = { type: 'message.accepted', ...result };
    if (reply.requestId !== undefined) accepted.requestId = reply.requestId;
    reply.peer.send(JSON.stringify(accepted));
  }

  /** Start a run of the session's agent; steering messages that waited for a boundary reach the chain first when there is one. */
  #startRun(session: LiveSession, agent: Agent): void {
    if (session.state.queued.some((message) => message.mode === 'steer') && atStepBoundary(session)) applyQueuedMessages(session, 'steer');
    AgentRun.start(session, agent, this.#runDeps);
  }

  /** A step of the run ended: steering messages go on the chain now, and a new run takes them into account. */
  #steerAtBoundary(run: AgentRun): void {
    const { session } = run;
    if (!session.state.queued.some((message) => message.mode === 'steer') || !atStepBoundary(session)) return;
    const agent = this.#agents.get(session.state.session.agent);
    if (agent === undefined) return;
    run.abort('the user sent a message');
    applyQueuedMessages(session, 'steer');
    AgentRun.start(session, agent, this.#runDeps);
  }

  /** The agent's turn ended: messages queued meanwhile go on the chain and start the next turn. */
  #continueWithQueued(run: AgentRun): boolean {
    const { session } = run;
    if (session.state.queued.length === 0) return false;
    const agent = this.#agents.get(session.state.session.agent);
    if (agent === undefined || !agent.availability().available) return false;
    session.finishDanglingHead();
    applyQueuedMessages(session);
    AgentRun.start(session, agent, this.#runDeps);
    return true;
  }

  /**
   * Decide the call waiting for approval, as one atomic turn once the session is loaded: the
   * decision, `running`, for a rejection the observation that records it, and a new run, which
   * runs an approved call's tool or goes on after the refusal (PROTOCOL.md §19.3 "Deciding").
   */
  async #decide(input: DecideInput, decision: Exclude<ApprovalDecision, 'edited'>, reply: ReplyTo | undefined): Promise<void> {
    await this.#open();
    const session = await this.#require(input.sessionId);
    const call = checkDecision(session, input.stepId);
    checkBudget(session.state, session.options, this.#maxTokensPerSession);
    const agent = this.#requireAgent(session.state.session.agent);
    // A timeout's rejection ends a wait the session already held a slot for: it is not refused for room.
    if (input.by !== TIMEOUT_DECIDER) this.#checkCapacity(input.quota);
    this.#deadlines.disarm(session.id);
    session.quotaKey = input.quota?.key;
    const by = input.by ?? UNKNOWN_DECIDER;
    appendDecision(session, { step: call, decision, by, ...(input.byName === undefined ? {} : { byName: input.byName }), ...(input.reason === undefined ? {} : { reason: input.reason }) }, reply);
    session.setStatus('running');
    if (decision === 'rejected') appendRefusalObservation(session, call, by, input.reason, this.#newId());
    this.#startRun(session, agent);
    this.#sessions.inUse(session.id);
  }

  /** A run completed a tool call the policy makes wait: the run ends before the tool can run, and the session waits. */
  #awaitApproval(run: AgentRun, call: Step): void {
    const { session } = run;
    run.abort('the tool call waits for approval');
    this.#pausedRuns.disarm(session);
    appendApprovalRequest(session, call);
    this.#armDeadline(session);
  }

  /** A model call of `run` used tokens: recorded, and the session stopped when they reach its budget (PROTOCOL.md §22.3 "Budgets"). */
  #recordUsage(run: AgentRun, report: ModelCallReport): void {
    const { session } = run;
    this.#usage.add(appendUsage(session, report, this.#prices));
    const use = budgetReached(session.state, session.options, this.#maxTokensPerSession);
    if (use !== undefined && BUDGET_STOPPABLE.has(session.status)) this.#stopForBudget(session, use);
  }

  /** Stop the session's run for good and fail it with `failure: "budget"`; messages still waiting go on the chain, as on a cancel. */
  #stopForBudget(session: LiveSession, use: BudgetUse): void {
    session.run?.abort('the token budget is spent');
    this.#pausedRuns.disarm(session);
    this.#deadlines.disarm(session.id);
    session.setStatus('failed', { error: budgetStopMessage(use), failure: 'budget' });
    if (session.state.queued.length > 0) {
      session.finishDanglingHead();
      applyQueuedMessages(session);
    }
  }

  /** Start the clock of the session's pending approval, if it has one and a timeout. */
  #armDeadline(session: LiveSession): void {
    this.#armDeadlineOf(session.state, session.options);
  }

  #armDeadlineOf(state: LiveSession['state'], options: LiveSession['options']): void {
    const pending = pendingApproval(state);
    if (pending === undefined || options.approvalTimeoutMs === undefined) return;
    this.#deadlines.arm(state.session.sessionId, pending.stepId, pending.requestedAt ?? this.#now().toISOString(), options.approvalTimeoutMs);
  }

  /** At start: the deadlines of stored sessions waiting with a timeout run on from their `requestedAt` (read from their logs, not kept in memory). */
  async #armStoredDeadlines(): Promise<void> {
    const waiting = await this.#store.listSessionsByStatus('waiting');
    for (const record of waiting) {
      if (record.options.approvalTimeoutMs === undefined) continue;
      try {
        const loaded = await loadSession(this.#store, record.info.sessionId);
        if (loaded !== undefined) this.#armDeadlineOf(loaded.state, loaded.options);
      } catch (error) {
        this.#reportError(`reading waiting session ${record.info.sessionId} failed`, error);
      }
    }
  }

  async #rejectForTimeout(sessionId: string, stepId: string): Promise<void> {
    try {
      await this.reject(timeoutRejection(sessionId, stepId));
    } catch (error) {
      // Decided, invalidated, cancelled or deleted meanwhile: nothing is left to time out.
      if (error instanceof SessionError && error.code !== 'INTERNAL') return;
      this.#reportError(`rejecting the timed-out approval of session ${sessionId} failed`, error);
    }
  }

  /** A batch was written (its sessions noted it themselves): serve the subscriptions waiting for it, tell the list, let idle sessions go. */
  #afterWrite(sessions: ReadonlySet<LiveSession>, summaries: readonly SessionInfo[]): void {
    for (const info of summaries) this.#listWatchers.changed(info);
    for (const session of sessions) {
      this.#subscriptions.written(session);
      this.#sessions.noteIfIdle(session);
    }
  }
}

/** A session core whose start-up recovery is done: what a server starts with. */
export async function startSessionManager(deps: SessionManagerDeps): Promise<SessionManager> {
  const manager = new SessionManager(deps);
  await manager.ready;
  return manager;
}
