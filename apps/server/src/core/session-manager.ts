import { nanoid } from 'nanoid';
import { toSnapshot, type SessionInfo, type SessionSnapshotData } from '@interthought/protocol';
import type { Agent } from '../agents/agent.js';
import type { AgentRegistry } from '../agents/agent-registry.js';
import type { ToolRegistry } from '../tools/tool-registry.js';
import { AgentRun, type RunDeps } from './agent-run.js';
import { appendCorrection, checkCorrection } from './correction.js';
import type { EventStore, SessionPage } from './event-store.js';
import { ACTIVE_STATUSES, LiveSession } from './live-session.js';
import { Outbox, type OutboxStats } from './outbox.js';
import { announceDeletion, deletedEvent } from './session-deletion.js';
import { SessionError } from './session-error.js';
import { SessionListWatchers } from './session-list-watchers.js';
import { loadSession, recoverInterrupted, stateBeforeFirstEvent } from './session-loader.js';
import type { CorrectStepInput, CorrectionResult, CreateSessionInput, Peer, ReplyTo, SessionService } from './session-service.js';
import { checkOptions, checkTask, notFound } from './session-input.js';
import { checkStatusRequest } from './status-rules.js';
import { PausedRunExpiry } from './paused-run-expiry.js';
import { SessionTable } from './session-table.js';
import { PeerIndex, serveSubscription } from './subscriptions.js';

export interface SessionManagerDeps {
  store: EventStore;
  agents: AgentRegistry;
  tools: ToolRegistry;
  /** Pause between streamed tokens when a session sets no `tokenDelayMs` (default 0). */
  defaultTokenDelayMs?: number;
  /** Running or paused sessions allowed at once (default 1000). */
  maxActiveSessions?: number;
  /** Running or paused sessions one owner (`Peer.owner`) may hold at once (default: no cap below `maxActiveSessions`). */
  maxActiveSessionsPerOwner?: number;
  /** A run paused this long is stopped and its session marked interrupted, freeing its slot (default 15 min). */
  pausedRunTtlMs?: number;
  now?: () => Date;
  /** Session and step ids (default nanoid). */
  newId?: () => string;
  /** Finished, unwatched sessions kept in memory before they are dropped and reloaded on demand (default 100). */
  idleSessionCacheSize?: number;
  /** Where failures the core survives are reported (default console.error). */
  reportError?: (context: string, error: unknown) => void;
}

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
  /** Sessions this process marked `interrupted` at startup (their run died with the previous process). */
  readonly recoveredSessionIds: readonly string[];
  readonly #store: EventStore;
  readonly #agents: AgentRegistry;
  readonly #tools: ToolRegistry;
  readonly #maxActive: number;
  readonly #maxActivePerOwner: number;
  readonly #pausedRuns: PausedRunExpiry<LiveSession>;
  readonly #now: () => Date;
  readonly #newId: () => string;
  readonly #runDeps: RunDeps;
  readonly #reportError: (context: string, error: unknown) => void;
  readonly #outbox: Outbox<LiveSession>;
  readonly #sessions: SessionTable;
  readonly #peers = new PeerIndex();
  readonly #listWatchers: SessionListWatchers;
  #shutdown: Promise<void> | undefined;

  constructor(deps: SessionManagerDeps) {
    this.#store = deps.store;
    this.#agents = deps.agents;
    this.#tools = deps.tools;
    this.#maxActive = deps.maxActiveSessions ?? 1000;
    this.#maxActivePerOwner = deps.maxActiveSessionsPerOwner ?? Number.POSITIVE_INFINITY;
    this.#pausedRuns = new PausedRunExpiry(deps.pausedRunTtlMs ?? 15 * 60_000, (session) => this.#expirePausedRun(session));
    this.#sessions = new SessionTable(deps.idleSessionCacheSize ?? 100);
    this.#now = deps.now ?? (() => new Date());
    this.#newId = deps.newId ?? (() => nanoid());
    this.#runDeps = { tools: deps.tools, newId: this.#newId, defaultTokenDelayMs: deps.defaultTokenDelayMs ?? 0 };
    this.#reportError = deps.reportError ?? reportToConsole;
    this.#listWatchers = new SessionListWatchers(this.#reportError);
    this.#outbox = new Outbox<LiveSession>({
      store: deps.store,
      reportError: this.#reportError,
      onWritten: (sessions) => this.#afterWrite(sessions),
    });
    this.#runDeps.backlog = this.#outbox;
    this.recoveredSessionIds = recoverInterrupted(deps.store, this.#now, (id) => this.#sessions.has(id));
  }

  /** Running or paused sessions in memory (what `maxActiveSessions` caps). */
  get activeSessionCount(): number {
    return this.#sessions.activeCount();
  }

  /** Sessions held in memory (running, watched, or cached while idle). */
  get sessionsInMemory(): number {
    return this.#sessions.size;
  }

  /** What the outbox has written, and how it commits now. */
  get commitStats(): OutboxStats {
    return this.#outbox.stats;
  }

  /** How many sessions a peer watches (for per-connection caps). */
  subscriptionCount(peer: Peer): number {
    return this.#peers.countFor(peer);
  }

  create(input: CreateSessionInput): SessionInfo {
    this.#checkOpen();
    const task = checkTask(input.task);
    const options = checkOptions(input.options);
    const agentName = input.agent ?? this.#agents.defaultName;
    const agent = this.#requireAgent(agentName);
    this.#checkCapacity(input.owner);
    const info: SessionInfo = { sessionId: this.#newId(), task, agent: agentName, status: 'running', revision: 0, createdAt: this.#now().toISOString() };
    this.#store.createSession({ info, options, lastSeq: 0 });
    this.#listWatchers.changed(info);
    const session = this.#sessions.add(new LiveSession(stateBeforeFirstEvent(info), options, (entry) => this.#outbox.enqueue(entry), this.#now));
    session.owner = input.owner;
    session.setStatus('running');
    AgentRun.start(session, agent, this.#runDeps);
    return session.info;
  }

  subscribe(sessionId: string, reply: ReplyTo, afterSeq?: number): void {
    const session = this.#require(sessionId);
    // Everything the state holds must be written (and sent to earlier subscribers) before it is served.
    if (!this.#outbox.flush()) {
      throw new SessionError('INTERNAL', 'The session\'s latest events could not be written yet; subscribe again shortly.');
    }
    // The flush may have dropped the session as idle; it is current, so it simply comes back.
    if (!this.#sessions.holds(session)) this.#sessions.add(session);
    const servedSeq = serveSubscription(session, this.#store, reply, afterSeq);
    this.#peers.add(session, reply.peer, servedSeq);
    this.#sessions.inUse(session.id);
  }

  unsubscribe(sessionId: string, peer: Peer): void {
    const session = this.#sessions.get(sessionId);
    if (session === undefined) {
      // Not in memory means nobody watches it; only its existence needs checking.
      if (this.#store.getSession(sessionId) === undefined) throw notFound(sessionId);
      return;
    }
    this.#peers.remove(session, peer);
    this.#sessions.noteIfIdle(session);
  }

  detach(peer: Peer): void {
    this.#listWatchers.remove(peer);
    for (const session of this.#peers.detach(peer)) this.#sessions.noteIfIdle(session);
  }

  watchList(peer: Peer, limit: number): SessionInfo[] {
    const { sessions } = this.list({ limit });
    this.#listWatchers.add(peer);
    return sessions;
  }

  unwatchList(peer: Peer): void {
    this.#listWatchers.remove(peer);
  }

  correct(input: CorrectStepInput): CorrectionResult {
    this.#checkOpen();
    const session = this.#require(input.sessionId);
    const target = checkCorrection(session, input, this.#tools);
    const agent = this.#requireAgent(session.state.session.agent);
    const reviving = !ACTIVE_STATUSES.has(session.status);
    if (reviving) this.#checkCapacity(input.owner);
    // From here on nothing can refuse: the turn is applied as a whole.
    session.run?.abort('a step was corrected');
    this.#pausedRuns.disarm(session);
    if (reviving) session.owner = input.owner;
    const newStepId = this.#newId();
    const revision = appendCorrection(session, {
      target,
      newStepId,
      content: input.content,
      ...(input.note === undefined ? {} : { note: input.note }),
      ...(input.by === undefined ? {} : { by: input.by }),
    });
    if (reviving) session.setStatus('running');
    AgentRun.start(session, agent, this.#runDeps);
    this.#sessions.inUse(session.id);
    return { sessionId: session.id, stepId: target.stepId, newStepId, revision };
  }

  pause(sessionId: string, reply?: ReplyTo): void {
    this.#checkOpen();
    const session = this.#require(sessionId);
    checkStatusRequest(sessionId, 'pause', session.status);
    session.setStatus('paused', reply ? { reply } : {});
    this.#pausedRuns.arm(session);
  }

  resume(sessionId: string, reply?: ReplyTo): void {
    this.#checkOpen();
    const session = this.#require(sessionId);
    checkStatusRequest(sessionId, 'resume', session.status);
    this.#pausedRuns.disarm(session);
    if (session.run !== undefined) {
      session.setStatus('running', reply ? { reply } : {});
      return;
    }
    // No run (interrupted, or paused by a previous process): continue from the head of the chain.
    const agent = this.#requireAgent(session.state.session.agent);
    if (!ACTIVE_STATUSES.has(session.status)) {
      this.#checkCapacity(reply?.peer.owner);
      session.owner = reply?.peer.owner;
    }
    session.finishDanglingHead();
    session.setStatus('running', reply ? { reply } : {});
    AgentRun.start(session, agent, this.#runDeps);
    this.#sessions.inUse(session.id);
  }

  cancel(sessionId: string, reply?: ReplyTo): void {
    this.#checkOpen();
    const session = this.#require(sessionId);
    checkStatusRequest(sessionId, 'cancel', session.status);
    this.#pausedRuns.disarm(session);
    session.run?.abort('the session was cancelled');
    session.setStatus('cancelled', reply ? { reply } : {});
  }

  /**
   * Durable first, then announced: pending events are written and sent, the store deletes the
   * session, and only then do its watchers get `session.deleted`, after everything else they got.
   */
  delete(sessionId: string, reply?: ReplyTo): void {
    this.#checkOpen();
    const live = typeof sessionId === 'string' ? this.#sessions.get(sessionId) : undefined;
    // A session not in memory has no watchers, no run and nothing unwritten: its record is enough.
    const lastSeq = live?.state.seq ?? this.#store.getSession(sessionId)?.lastSeq;
    if (lastSeq === undefined) throw notFound(sessionId);
    if (live !== undefined && !this.#outbox.flush()) {
      throw new SessionError('INTERNAL', 'The session\'s latest events could not be written yet, so it was not deleted; try again shortly.');
    }
    try {
      this.#store.deleteSession(sessionId);
    } catch (error) {
      this.#reportError(`deleteSession failed for session ${sessionId}`, error);
      throw new SessionError('INTERNAL', `Session ${sessionId} could not be deleted from the store; it is unchanged. Try again.`);
    }
    let watchers: Peer[] = [];
    if (live !== undefined) {
      live.run?.abort('the session was deleted');
      this.#pausedRuns.disarm(live);
      live.deleted = true;
      watchers = this.#peers.removeSession(live);
      this.#sessions.remove(live);
    }
    announceDeletion(deletedEvent(sessionId, lastSeq, this.#now().toISOString()), watchers, reply, this.#reportError);
    this.#listWatchers.removed(sessionId);
  }

  /** Typed as the snapshot fields (the contract's `Omit` of a loose zod type erases them). */
  snapshot(sessionId: string): SessionSnapshotData | undefined {
    const session = this.#find(sessionId);
    return session ? toSnapshot(session.state) : undefined;
  }

  list(options: { limit: number; before?: string }): SessionPage {
    // Summaries are written after their events; flushing first makes the list current.
    this.#outbox.flush();
    return this.#store.listSessions(options);
  }

  shutdown(): Promise<void> {
    this.#shutdown ??= this.#stop();
    return this.#shutdown;
  }

  async #stop(): Promise<void> {
    this.#pausedRuns.stop();
    const settling: Promise<void>[] = [];
    for (const session of this.#sessions.values()) {
      const run = session.run;
      if (run === undefined) continue;
      settling.push(run.settled);
      run.abort('the server is shutting down');
    }
    this.#outbox.flush();
    let timer: NodeJS.Timeout | undefined;
    const grace = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, SHUTDOWN_GRACE_MS);
      timer.unref();
    });
    await Promise.race([Promise.allSettled(settling), grace]);
    clearTimeout(timer);
    this.#outbox.flush();
    this.#outbox.close();
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

  /** Room for one more active session on the server, and for `owner` under its own cap. */
  #checkCapacity(owner?: string): void {
    if (this.activeSessionCount >= this.#maxActive) {
      throw new SessionError(
        'LIMIT_EXCEEDED',
        `The server already has ${this.#maxActive} running or paused sessions; cancel one or wait for one to finish.`,
      );
    }
    if (owner === undefined || this.#sessions.activeCount(owner) < this.#maxActivePerOwner) return;
    throw new SessionError(
      'LIMIT_EXCEEDED',
      `You already have ${this.#maxActivePerOwner} running or paused sessions on this server; cancel one or wait for one to finish.`,
    );
  }

  /** A run paused for the whole TTL: stopped, and the session marked interrupted (resumable), so its slot is free. */
  #expirePausedRun(session: LiveSession): void {
    if (session.status !== 'paused' || session.deleted) return;
    session.run?.abort('the session stayed paused too long');
    session.setStatus('interrupted', { detail: 'Paused for too long: the run was stopped to free its slot. Resume to continue.' });
  }

  #require(sessionId: string): LiveSession {
    const session = this.#find(sessionId);
    if (session === undefined) throw notFound(sessionId);
    return session;
  }

  /** The live session, or the stored one loaded into memory the first time it is touched. */
  #find(sessionId: string): LiveSession | undefined {
    if (typeof sessionId !== 'string') return undefined;
    const live = this.#sessions.get(sessionId);
    if (live !== undefined) return live;
    const loaded = loadSession(this.#store, sessionId);
    if (loaded === undefined) return undefined;
    const session = this.#sessions.add(new LiveSession(loaded.state, loaded.options, (entry) => this.#outbox.enqueue(entry), this.#now));
    // Stored as running but run by no one here: a run the startup recovery did not see.
    if (session.status === 'running') session.setStatus('interrupted');
    this.#sessions.noteIfIdle(session, { keep: true });
    return session;
  }

  /** After a batch is written: persist the summaries it changed (after their events, so they never run ahead of the log). */
  #afterWrite(sessions: ReadonlySet<LiveSession>): void {
    for (const session of sessions) {
      session.unwritten = 0;
      if (session.infoChanged) {
        try {
          this.#store.updateSession(session.info);
          session.infoChanged = false;
          this.#listWatchers.changed(session.info);
        } catch (error) {
          // Left marked: the next batch of this session writes the summary again.
          this.#reportError(`updateSession failed for session ${session.id}`, error);
        }
      }
      this.#sessions.noteIfIdle(session);
    }
  }
}
