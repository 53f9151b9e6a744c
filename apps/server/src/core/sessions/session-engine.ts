import { nanoid } from 'nanoid';
import { DEFAULT_MAX_SUBAGENT_DEPTH, toSnapshot, type ApprovalPolicy, type SessionInfo, type SessionSnapshotData } from '@interthought/protocol';
import type { Agent, AgentRegistry } from '@interthought/agent';
import type { ToolCatalog } from '../ports/tool-catalog.js';
import type { LessonsSource } from '../ports/lessons-source.js';
import { UNTRACED, type TraceTurn } from '../ports/turn-tracer.js';
import { AgentRun, type RunDeps } from '../run/agent-run.js';
import { SessionTimers } from '../run/session-timers.js';
import { applyQueuedMessages, atStepBoundary } from '../commands/conversation.js';
import type { EventStore } from '../persistence/event-store.js';
import { LiveSession } from './live-session.js';
import { Outbox } from '../persistence/outbox.js';
import { SessionError, notFound } from '../session-error.js';
import { loadSession, recoverInterrupted } from '../persistence/session-loader.js';
import type { Quota } from '../commands/quota.js';
import type { Peer, ReplyTo } from '../fanout/peer.js';
import type { SessionCoreStats } from '../session-service.js';
import { SessionTable } from './session-table.js';
import { Subscriptions } from '../fanout/subscriptions.js';
import type { PriceTable } from '../run/model-prices.js';
import { UsageTotals } from '../run/usage-ledger.js';
import { turnHooks } from '../run/turn-hooks.js';
import { SubagentRuns } from '../subagents/subagent-runs.js';
import { withDelegate } from '../subagents/delegate-tool.js';
import { stopAtBreakpoint } from '../run/breakpoint-stop.js';
import { correctionsOf } from '../../corrections/correction-of-event.js';

export interface SessionEngineDeps {
  store: EventStore;
  agents: AgentRegistry;
  tools: ToolCatalog;
  /** Pause between streamed tokens when a session sets no `tokenDelayMs` (default 0). */
  defaultTokenDelayMs?: number;
  /** How runs are traced (default: not at all; the server plugs in its OpenTelemetry spans). */
  traceTurn?: TraceTurn;
  /** Running or paused sessions allowed at once (default 1000). */
  maxActiveSessions?: number;
  /** A run paused this long is stopped and its session marked interrupted, freeing its slot (default 15 min). */
  pausedRunTtlMs?: number;
  now?: () => Date;
  /** Session and step ids (default nanoid). */
  newId?: () => string;
  /** Finished, unwatched sessions kept in memory before they are dropped and reloaded on demand (default 100). */
  idleSessionCacheSize?: number;
  /** Mark the sessions a previous process left `running` as interrupted at start. */
  recoverInterrupted: boolean;
  /** The approval policy of sessions created without one (`INTERTHOUGHT_APPROVE`); absent: tools that change something wait. */
  defaultApprove?: ApprovalPolicy;
  /** Where failures the core survives are reported. */
  reportError: (context: string, error: unknown) => void;
  /** Prices of models by name, to cost their calls (INTERTHOUGHT_PRICES; PROTOCOL.md §22.2). */
  prices?: PriceTable;
  /** Every session's token budget, which `options.maxTokens` may lower (INTERTHOUGHT_MAX_TOKENS_PER_SESSION; §22.3). */
  maxTokensPerSession?: number;
  /** How deep sub-agents may nest (INTERTHOUGHT_MAX_SUBAGENT_DEPTH; `hello.limits.maxSubagentDepth`, PROTOCOL.md §24.1). */
  maxSubagentDepth?: number;
  /** Where the runs of agents that learn get their lessons (PROTOCOL.md §26.4); without, none do. */
  lessons?: LessonsSource;
  /** Typed hooks the engine reports to (the service that owns it). */
  hooks: EngineHooks;
}

/** What the engine tells its owner, as typed values. */
export interface EngineHooks {
  /** A pending approval's deadline passed (`options.approvalTimeoutMs`): reject it where the session can run. */
  approvalTimedOut(sessionId: string, stepId: string): void;
  /** A pending question's deadline passed (`options.inputTimeoutMs`, PROTOCOL.md §25.2): close it unanswered where the session can run. */
  questionTimedOut(sessionId: string, stepId: string): void;
  /** A session's summary was stored (created, or its status, revision or usage changed). */
  summaryStored(info: SessionInfo): void;
}

/** How long `shutdown` waits for aborted agents to return before it writes and stops anyway. */
const SHUTDOWN_GRACE_MS = 5_000;


/**
 * The sessions this process runs: each one's state machine in memory, its run, its timers and its
 * local subscribers, written through the outbox. The commands (`commands/`) act on it; the
 * `SessionManager` owns it and is the only one that does. Sessions are loaded lazily from the
 * store the first time an id is touched; finished unwatched ones are dropped again beyond a cache.
 */
export class SessionEngine {
  /** Settles once the sessions a previous process left running are marked interrupted; every command waits for it. */
  readonly ready: Promise<void>;
  readonly store: EventStore;
  readonly tools: ToolCatalog;
  readonly maxTokensPerSession: number | undefined;
  readonly defaultApprove: ApprovalPolicy | undefined;
  readonly now: () => Date;
  readonly newId: () => string;
  readonly reportError: (context: string, error: unknown) => void;
  readonly hooks: EngineHooks;
  readonly subscriptions: Subscriptions;
  /** The sub-agents of the sessions run here (PROTOCOL.md §24). */
  readonly subagents: SubagentRuns;
  readonly #agents: AgentRegistry;
  readonly #maxActive: number;
  /** The clocks of paused runs and pending approvals. */
  readonly timers: SessionTimers;
  readonly #runDeps: RunDeps;
  readonly #outbox: Outbox<LiveSession>;
  readonly #sessions: SessionTable;
  /** Loads from the store in progress, so two requests for one stored session share one `LiveSession`. */
  readonly #loading = new Map<string, Promise<LiveSession | undefined>>();
  #recovered: readonly string[] = [];
  #shutdown: Promise<void> | undefined;
  /** What every model call run here used (metrics). */
  readonly #usage = new UsageTotals();

  constructor(deps: SessionEngineDeps) {
    this.store = deps.store;
    this.#agents = deps.agents;
    this.tools = withDelegate(deps.tools);
    this.hooks = deps.hooks;
    this.#maxActive = deps.maxActiveSessions ?? 1000;
    this.#sessions = new SessionTable(deps.idleSessionCacheSize ?? 100);
    this.now = deps.now ?? (() => new Date());
    this.newId = deps.newId ?? (() => nanoid());
    this.maxTokensPerSession = deps.maxTokensPerSession;
    this.reportError = deps.reportError;
    this.defaultApprove = deps.defaultApprove;
    this.timers = new SessionTimers({
      store: deps.store,
      now: this.now,
      ...(deps.pausedRunTtlMs === undefined ? {} : { pausedRunTtlMs: deps.pausedRunTtlMs }),
      pausedTooLong: (session) => this.#expirePausedRun(session),
      approvalTimedOut: (sessionId, stepId) => this.hooks.approvalTimedOut(sessionId, stepId),
      questionTimedOut: (sessionId, stepId) => this.hooks.questionTimedOut(sessionId, stepId),
      holdsInMemory: (sessionId) => this.#sessions.has(sessionId),
      reportError: this.reportError,
    });
    this.subscriptions = new Subscriptions(deps.store);
    this.#outbox = new Outbox<LiveSession>({
      store: deps.store,
      reportError: this.reportError,
      onWritten: ({ targets, summaries }) => this.#afterWrite(targets, summaries),
      onWriteFailed: () => this.subscriptions.refuseWaiting(),
      correctionsOf: (entry) => correctionsOf(entry.event, entry.target.state),
      onLost: (sessions) => {
        for (const session of sessions) this.evict(session.id, 'the store refused its events: another node owns it now');
      },
    });
    this.subagents = new SubagentRuns({
      agents: deps.agents,
      tools: this.tools,
      maxDepth: deps.maxSubagentDepth ?? DEFAULT_MAX_SUBAGENT_DEPTH,
      startScoped: (session, agent, scoped) => AgentRun.start(session, agent, this.#runDeps, scoped),
      startRoot: (session) => {
        const agent = this.#agents.get(session.state.session.agent);
        if (agent !== undefined) this.startRun(session, agent);
      },
    });
    this.#runDeps = {
      tools: this.tools,
      subagents: this.subagents,
      newId: this.newId,
      defaultTokenDelayMs: deps.defaultTokenDelayMs ?? 0,
      traceTurn: deps.traceTurn ?? UNTRACED,
      backlog: this.#outbox,
      ...(deps.lessons === undefined ? {} : { lessons: deps.lessons }),
      ...turnHooks({
        agents: this.#agents,
        timers: this.timers,
        usage: this.#usage,
        ...(deps.prices === undefined ? {} : { prices: deps.prices }),
        ...(deps.maxTokensPerSession === undefined ? {} : { maxTokensPerSession: deps.maxTokensPerSession }),
        subagents: this.subagents,
        stopRun: (session, why) => this.stopRun(session, why),
        runAgain: (session, agent) => AgentRun.start(session, agent, this.#runDeps),
        newId: this.newId,
      }),
      stopAtBreakpoint: (run, step, match) => stopAtBreakpoint(run, step, match, this.timers),
    };
    const recovering = !deps.recoverInterrupted
      ? Promise.resolve([])
      : recoverInterrupted(deps.store, this.now, (id) => this.#sessions.has(id)).then(async (ids) => {
          await this.timers.armStored();
          return ids;
        });
    this.ready = recovering.then(
      (ids) => {
        this.#recovered = ids;
      },
      (error: unknown) => this.reportError('marking the runs of a previous process interrupted failed', error),
    );
  }

  /** Sessions this process marked `interrupted` at startup (their run died with the previous process); complete once `ready` settled. */
  get recoveredSessionIds(): readonly string[] {
    return this.#recovered;
  }

  get activeSessionCount(): number {
    return this.#sessions.activeCount();
  }

  get stats(): SessionCoreStats {
    return { activeSessions: this.#sessions.activeCount(), sessionsInMemory: this.#sessions.size, commits: this.#outbox.stats, usage: this.#usage };
  }

  /** Wait for start-up recovery, and refuse once shutting down. */
  async open(): Promise<void> {
    this.checkOpen();
    await this.ready;
    this.checkOpen();
  }

  checkOpen(): void {
    if (this.#shutdown !== undefined) throw new SessionError('INTERNAL', 'The server is shutting down; try again once it is back.');
  }

  requireAgent(name: string): Agent {
    const agent = this.#agents.get(name);
    if (agent === undefined) {
      const known = this.#agents.list().map((listing) => listing.name);
      throw new SessionError('AGENT_NOT_FOUND', `Unknown agent "${name}". Known agents: ${known.length > 0 ? known.join(', ') : '(none)'}.`);
    }
    const availability = agent.availability();
    if (!availability.available) throw new SessionError('AGENT_UNAVAILABLE', `Agent "${name}" is unavailable: ${availability.reason}`);
    return agent;
  }

  get defaultAgentName(): string {
    return this.#agents.defaultName;
  }

  /** Room for one more active session on the server, and for `quota` under its own cap. */
  checkCapacity(quota?: Quota): void {
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

  /** A new session in memory, from the state before its first event (its record is stored already). */
  adopt(state: LiveSession['state'], options: LiveSession['options']): LiveSession {
    return this.#sessions.add(this.#live(state, options));
  }

  /** The live session, or the stored one loaded into memory the first time it is touched. */
  async find(sessionId: string): Promise<LiveSession | undefined> {
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

  async require(sessionId: string): Promise<LiveSession> {
    const session = await this.find(sessionId);
    if (session === undefined) throw notFound(sessionId);
    return session;
  }

  /** The session in memory, or the one being loaded; undefined when neither (it may still be stored). */
  async inMemory(sessionId: string): Promise<LiveSession | undefined> {
    return this.#sessions.get(sessionId) ?? (await this.#loading.get(sessionId));
  }

  /** The session is in use again: it leaves the idle cache. */
  inUse(session: LiveSession): void {
    this.#sessions.inUse(session.id);
  }

  /** The session may be idle now: it joins the idle cache if nothing holds it. */
  noteIfIdle(session: LiveSession): void {
    this.#sessions.noteIfIdle(session);
  }

  /** Start a run of the session's agent; steering messages that waited for a boundary reach the chain first when there is one. */
  startRun(session: LiveSession, agent: Agent): void {
    if (session.state.queued.some((message) => message.mode === 'steer') && atStepBoundary(session)) applyQueuedMessages(session, 'steer');
    AgentRun.start(session, agent, this.#runDeps);
  }

  /**
   * Stop whatever runs or waits for the session: its run is aborted, the clock of a paused run
   * and the deadline of a pending approval are disarmed. The one way a command ends a run.
   */
  stopRun(session: LiveSession, why: string): void {
    session.abortRuns(why);
    this.timers.disarm(session);
  }


  /**
   * Drop a session from memory, telling nobody: its run is aborted, nothing more is appended to it,
   * its subscribers are detached. For a session this process must stop running because another
   * one owns it now (cluster mode); the store keeps it, and a later request loads it again.
   */
  evict(sessionId: string, why: string): void {
    const session = this.#sessions.get(sessionId);
    if (session === undefined) return;
    session.abortRuns(why);
    this.timers.disarmPaused(session);
    session.retire();
    this.subscriptions.removeSession(session);
    this.#sessions.remove(session);
  }

  /**
   * The session is deleted: nothing is appended from now on, what its run queued goes nowhere,
   * its subscribers are detached and returned (with the seq each was served).
   */
  forget(session: LiveSession): Map<Peer, number> {
    session.markDeleted();
    this.stopRun(session, 'the session was deleted');
    this.#outbox.discard(session);
    const watchers = this.subscriptions.removeSession(session);
    this.#sessions.remove(session);
    return watchers;
  }

  /** Subscribe `reply.peer` to a session of this process (the single-node fan-out). */
  async subscribe(sessionId: string, reply: ReplyTo, afterSeq?: number): Promise<void> {
    const session = await this.require(sessionId);
    await this.subscriptions.open(session, reply, afterSeq);
    this.#sessions.inUse(session.id);
  }

  async unsubscribe(sessionId: string, peer: Peer): Promise<void> {
    const session = this.#sessions.get(sessionId);
    if (session === undefined) {
      // Not in memory means nobody watches it; only its existence needs checking.
      if ((await this.store.getSession(sessionId)) === undefined) throw notFound(sessionId);
      return;
    }
    this.subscriptions.remove(session, peer);
    this.#sessions.noteIfIdle(session);
  }

  detach(peer: Peer): void {
    for (const session of this.subscriptions.detach(peer)) this.#sessions.noteIfIdle(session);
  }

  /** The session's current snapshot as this process holds it (loaded on demand), or undefined. */
  async snapshot(sessionId: string): Promise<SessionSnapshotData | undefined> {
    const session = await this.find(sessionId);
    return session ? toSnapshot(session.state) : undefined;
  }

  /** Resolves once everything queued so far is written and sent (false if a write failed meanwhile). */
  flushed(): Promise<boolean> {
    return this.#outbox.flush();
  }

  /** Resolves once what was queued so far is written; `INTERNAL` when the write failed. */
  async written(): Promise<void> {
    if (await this.#outbox.flush()) return;
    throw new SessionError('INTERNAL', 'The change could not be written to the store yet; try again shortly.');
  }

  shutdown(): Promise<void> {
    this.#shutdown ??= this.#stop();
    return this.#shutdown;
  }

  async #stop(): Promise<void> {
    await this.ready;
    this.timers.stop();
    const settling: Promise<void>[] = [];
    for (const session of this.#sessions.values()) {
      for (const run of session.runs.all()) {
        settling.push(run.settled);
        run.abort('the server is shutting down');
      }
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

  /** A run paused for the whole TTL: stopped, and the session marked interrupted (resumable), so its slot is free. */
  #expirePausedRun(session: LiveSession): void {
    if (session.status !== 'paused' || session.deleted) return;
    this.subagents.interrupt(session, 'Paused for too long: the run was stopped to free its slot. Resume to continue.');
  }

  #live(state: LiveSession['state'], options: LiveSession['options']): LiveSession {
    return new LiveSession(state, options, (entry) => this.#outbox.enqueue(entry), this.now, (session) => this.subscriptions.subscribersOf(session));
  }

  async #load(sessionId: string): Promise<LiveSession | undefined> {
    const loaded = await loadSession(this.store, sessionId);
    // Created or loaded by another request meanwhile: that one is the session.
    const current = this.#sessions.get(sessionId);
    if (current !== undefined) return current;
    if (loaded === undefined) return undefined;
    const session = this.#sessions.add(this.#live(loaded.state, loaded.options));
    // Stored as running but run by no one here: a run the startup recovery did not see.
    if (session.status === 'running') session.setStatus('interrupted');
    // Its sub-agents' runs stopped with it (the startup recovery marked the session alone, without reading its log).
    if (session.status === 'interrupted') this.subagents.markInterrupted(session);
    this.timers.armDeadlineOf(session.state, session.options);
    this.#sessions.noteIfIdle(session, { keep: true });
    return session;
  }

  /** A batch was written (its sessions noted it themselves): serve the subscriptions waiting for it, tell the list, let idle sessions go. */
  #afterWrite(sessions: ReadonlySet<LiveSession>, summaries: readonly SessionInfo[]): void {
    for (const info of summaries) this.hooks.summaryStored(info);
    for (const session of sessions) {
      this.subscriptions.written(session);
      this.#sessions.noteIfIdle(session);
    }
  }
}

