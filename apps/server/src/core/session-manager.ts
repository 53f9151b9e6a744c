import { isActive, toSnapshot, type SessionDeletedEvent, type SessionInfo, type SessionOptions, type SessionSnapshotData, type SessionState, type ShareRecord } from '@interthought/protocol';
import { SessionEngine, type SessionEngineDeps } from './sessions/session-engine.js';
import { createSession, forkSession, importSession } from './commands/create-session.js';
import { deleteSession } from './commands/delete-session.js';
import { COMMANDS, type CommandRun, type CommandTypes } from './commands/command-table.js';
import { timeoutRejection } from './commands/approvals.js';
import { SessionListWatchers } from './fanout/session-list-watchers.js';
import { listInScope } from './fanout/session-list-scope.js';
import { localFanout } from './fanout/local-fanout.js';
import { answer } from './fanout/answer.js';
import type { Peer, ReplyTo } from './fanout/peer.js';
import { loadSession } from './persistence/session-loader.js';
import type { SessionPage } from './persistence/event-store.js';
import { readSessionExport, type SessionExport } from './transfer/session-export.js';
import type { ParsedImport } from './transfer/session-import.js';
import { SINGLE_PROCESS, type CommandOp, type SessionPlacement } from './ports/session-placement.js';
import type { SessionFanout } from './ports/session-fanout.js';
import type { ListChange, ListRelay } from './ports/list-relay.js';
import { SessionError, notFound } from './session-error.js';
import { PlacedCommands } from './placement/placed-commands.js';
import type {
  Actor,
  AnswerInput,
  CancelSubagentInput,
  CorrectStepInput,
  CorrectionResult,
  CreateSessionInput,
  DecideInput,
  ForgetApprovalsInput,
  ForkInput,
  ListScope,
  MessageInput,
  MessageResult,
  SessionAccessFacts,
  SessionCoreStats,
  SessionService,
  ShareInput,
  UnshareInput,
} from './session-service.js';

/** What a cluster plugs into the core: where sessions run, how clients follow them, how the list reaches every node. */
export interface ClusterPorts {
  placement: SessionPlacement;
  fanout: SessionFanout;
  listRelay: ListRelay;
}

export interface SessionManagerDeps extends Omit<SessionEngineDeps, 'recoverInterrupted' | 'reportError' | 'hooks'> {
  /**
   * Mark the sessions a previous process left `running` as interrupted at start (default: true on
   * a single process, false in a cluster, where other nodes run those sessions and the takeover
   * sweep finds the ones whose owner died).
   */
  recoverInterrupted?: boolean;
  /** Where failures the core survives are reported (default console.error). */
  reportError?: (context: string, error: unknown) => void;
  /** Cluster mode's adapters; absent: a single process. */
  cluster?: ClusterPorts;
}


function reportToConsole(context: string, error: unknown): void {
  console.error(`[session-core] ${context}:`, error);
}


/**
 * The session core behind `SessionService`: the one implementation, on a single process and on a
 * cluster node alike. Its engine runs the sessions placed here; the ports say what differs —
 * where a session runs (`SessionPlacement`), how clients follow it (`SessionFanout`) and how list
 * changes reach every process (`ListRelay`). A command runs where its session is placed: here, or
 * routed to the node that runs it and answered on the requester's connection.
 */
export class SessionManager implements SessionService {
  readonly ready: Promise<void>;
  readonly #engine: SessionEngine;
  readonly #placement: SessionPlacement;
  readonly #fanout: SessionFanout;
  readonly #listRelay: ListRelay | undefined;
  readonly #listWatchers: SessionListWatchers;
  readonly #report: (context: string, error: unknown) => void;
  /** Where commands run in a cluster (claimed, routed, handed back); unused by a single process. */
  readonly #placed: PlacedCommands;
  /** Set once `shutdown` begins: what fails from then on because this node stops is no failure to report. */
  #shuttingDown = false;

  constructor(deps: SessionManagerDeps) {
    const { cluster, recoverInterrupted, reportError, ...engineDeps } = deps;
    this.#report = reportError ?? reportToConsole;
    this.#placement = cluster?.placement ?? SINGLE_PROCESS;
    this.#listRelay = cluster?.listRelay;
    this.#listWatchers = new SessionListWatchers(this.#report);
    this.#engine = new SessionEngine({
      ...engineDeps,
      recoverInterrupted: recoverInterrupted ?? cluster === undefined,
      reportError: this.#report,
      hooks: {
        approvalTimedOut: (sessionId, stepId) => void this.#rejectForTimeout(sessionId, stepId),
        questionTimedOut: (sessionId, stepId) => void this.#closeForTimeout(sessionId, stepId),
        summaryStored: (info) => this.#summaryStored(info),
      },
    });
    this.#fanout = cluster?.fanout ?? localFanout(this.#engine);
    this.#placed = new PlacedCommands(this.#placement, this.#fanout, this.#engine, (op, sessionId, reply, input) => this.#apply(op, sessionId, reply, input), this.#report);
    this.ready = this.#engine.ready;
    this.#listRelay?.receive((change, frame) => this.#listChanged(change, frame));
    this.#placement.serve({
      routed: (command, send) => this.#placed.serveRouted(command, send),
      lost: (sessionId) => this.#engine.evict(sessionId, 'another node owns the session now'),
      orphaned: (sessionId) => void this.#placed.takeOver(sessionId).catch((error: unknown) => this.#report(`taking over session ${sessionId} failed`, error)),
    });
  }

  /** Sessions this process marked `interrupted` at startup (their run died with the previous process); complete once `ready` settled. */
  get recoveredSessionIds(): readonly string[] {
    return this.#engine.recoveredSessionIds;
  }

  /** Running or paused sessions in memory (what `maxActiveSessions` caps). */
  get activeSessionCount(): number {
    return this.#engine.activeSessionCount;
  }

  get stats(): SessionCoreStats {
    const cluster = this.#placement.health();
    return { ...this.#engine.stats, ...(cluster === undefined ? {} : { cluster: { ...cluster, followedSessions: this.#fanout.followed ?? 0 } }) };
  }

  /** Resolves once everything queued so far is written and sent (false if a write failed meanwhile). */
  flushed(): Promise<boolean> {
    return this.#engine.flushed();
  }

  async create(input: CreateSessionInput, reply?: ReplyTo): Promise<SessionInfo> {
    // A single process creates every session here; a cluster where its agent can run.
    if (this.#placement.handsBack) {
      const placed = this.#placement.placeNew(input.agent ?? this.#engine.defaultAgentName);
      if (!placed.here) {
        const created = await this.#placed.createElsewhere(placed.nodeId, input, reply);
        if (created !== undefined) return created;
      }
    }
    // The new session is placed here (a cluster's store takes its lease before its first event).
    return createSession(this.#engine, input, reply, (session, peer) => this.#fanout.attachCreator(session, peer));
  }

  subscribe(sessionId: string, reply: ReplyTo, afterSeq?: number): Promise<void> {
    return this.#fanout.subscribe(sessionId, reply, afterSeq);
  }

  unsubscribe(sessionId: string, peer: Peer): Promise<void> {
    return this.#fanout.unsubscribe(sessionId, peer);
  }

  detach(peer: Peer): void {
    this.#listWatchers.remove(peer);
    this.#fanout.detach(peer);
  }

  subscriptionCount(peer: Peer): number {
    return this.#fanout.count(peer);
  }

  isSubscribed(peer: Peer, sessionId: string): boolean {
    return this.#fanout.follows(peer, sessionId);
  }

  correct(input: CorrectStepInput, reply?: ReplyTo): Promise<CorrectionResult> {
    return this.#command('correct', input.sessionId, reply, input) as Promise<CorrectionResult>;
  }

  /** Decisions go where the session is run, like every command: of two at once, one is applied first. */
  approve(input: DecideInput, reply?: ReplyTo): Promise<void> {
    return this.#command('approve', input.sessionId, reply, input) as Promise<void>;
  }

  reject(input: DecideInput, reply?: ReplyTo): Promise<void> {
    return this.#command('reject', input.sessionId, reply, input) as Promise<void>;
  }

  /** Remembered approvals are in the session's log: taken back where it is run, like a decision. */
  forgetApprovals(input: ForgetApprovalsInput, reply?: ReplyTo): Promise<void> {
    return this.#command('forgetApprovals', input.sessionId, reply, input) as Promise<void>;
  }

  /** Answers go where the session is run, like decisions: of two at once, one is applied first. */
  provideInput(input: AnswerInput, reply?: ReplyTo): Promise<void> {
    return this.#command('answer', input.sessionId, reply, input) as Promise<void>;
  }

  message(input: MessageInput, reply?: ReplyTo): Promise<MessageResult> {
    return this.#command('message', input.sessionId, reply, input) as Promise<MessageResult>;
  }

  /** The fork is created here; in a cluster, idle, it is handed back at once (the first message claims it again); a replay (`run`) stays. */
  async fork(input: ForkInput, reply?: ReplyTo): Promise<SessionInfo> {
    await this.#engine.open();
    const source = await this.#readSource(input.sessionId);
    if (source === undefined) throw notFound(input.sessionId);
    const info = await forkSession(this.#engine, source, input, reply, (session, peer) => this.#fanout.attachCreator(session, peer));
    // A replay runs here, where it was created, like a new session; an idle fork is nobody's until touched.
    if (input.run !== true) await this.#placed.letGo(info.sessionId);
    return info;
  }

  pause(sessionId: string, reply?: ReplyTo): Promise<void> {
    return this.#command('pause', sessionId, reply) as Promise<void>;
  }

  resume(sessionId: string, reply?: ReplyTo): Promise<void> {
    return this.#command('resume', sessionId, reply) as Promise<void>;
  }

  cancel(sessionId: string, reply?: ReplyTo): Promise<void> {
    return this.#command('cancel', sessionId, reply) as Promise<void>;
  }

  cancelSubagent(input: CancelSubagentInput, reply?: ReplyTo): Promise<void> {
    return this.#command('cancelSubagent', input.sessionId, reply, { scope: input.scope }) as Promise<void>;
  }

  delete(sessionId: string, reply?: ReplyTo): Promise<SessionDeletedEvent> {
    return this.#command('delete', sessionId, reply) as Promise<SessionDeletedEvent>;
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
    try {
      answer(reply, { type: 'sessions.watching', sessions: page.sessions });
    } catch (error) {
      // Peer.send must not throw; one that does is reported and still released, so nothing piles up for it.
      this.#report(`peer ${peer.id} threw from send`, error);
    }
    this.#listWatchers.release(peer);
    return page.sessions;
  }

  unwatchList(peer: Peer): void {
    this.#listWatchers.remove(peer);
  }

  /** Typed as the snapshot fields (the contract's `Omit` of a loose zod type erases them). */
  async snapshot(sessionId: string): Promise<SessionSnapshotData | undefined> {
    if (this.#placement.holds(sessionId)) return this.#engine.snapshot(sessionId);
    const loaded = await loadSession(this.#engine.store, sessionId);
    return loaded === undefined ? undefined : toSnapshot(loaded.state);
  }

  /** Read from the store, whoever runs the session; what this process queued for it is written first. */
  async exportSession(sessionId: string): Promise<SessionExport> {
    await this.ready;
    if (this.#placement.holds(sessionId)) await this.#engine.flushed();
    const exported = await readSessionExport(this.#engine.store, sessionId);
    if (exported === undefined) throw notFound(sessionId);
    return exported;
  }

  /** Stored here, then (in a cluster) handed back: nothing runs it. */
  async importSession(parsed: ParsedImport, ownedBy?: Actor): Promise<SessionInfo> {
    const info = await importSession(this.#engine, parsed, ownedBy);
    await this.#placed.letGo(info.sessionId);
    return info;
  }

  async list(options: { limit: number; before?: string; scope?: ListScope }): Promise<SessionPage> {
    await this.ready;
    // Summaries are written with their events; writing what is queued makes the list current.
    await this.#engine.flushed();
    return listInScope(this.#engine.store, options);
  }

  /** From the process that runs the session, else from the store (the owner and links are in its log). */
  async accessFacts(sessionId: string): Promise<SessionAccessFacts | undefined> {
    if (!this.#placement.holds(sessionId)) {
      const loaded = await loadSession(this.#engine.store, sessionId);
      return loaded === undefined ? undefined : { owner: loaded.state.session.owner, shares: loaded.state.shares };
    }
    const session = await this.#engine.find(sessionId);
    if (session === undefined || session.deleted) return undefined;
    return { owner: session.state.session.owner, shares: session.state.shares };
  }

  /** Links go into the session's log, so they are made where it is run, like every command. */
  share(input: ShareInput): Promise<ShareRecord> {
    return this.#command('share', input.sessionId, undefined, input) as Promise<ShareRecord>;
  }

  unshare(input: UnshareInput): Promise<void> {
    return this.#command('unshare', input.sessionId, undefined, input) as Promise<void>;
  }

  async sharingKey(): Promise<string> {
    await this.ready;
    return this.#engine.store.sharingKey();
  }

  async shutdown(): Promise<void> {
    this.#shuttingDown = true;
    // Renewing stops and the runs are aborted in this very turn, before anything else can happen.
    const renewing = this.#placement.stop({ release: false });
    const stopping = this.#engine.shutdown();
    await renewing;
    await stopping;
    // Everything is written: hand the sessions over so other nodes take them at once, not after the TTL.
    await this.#placement.stop({ release: true });
    await this.#fanout.close();
  }

  /** A source to fork: the session as this process runs it, else as the store holds it (whoever runs it). */
  async #readSource(sessionId: string): Promise<{ state: SessionState; options: SessionOptions } | undefined> {
    if (typeof sessionId !== 'string') return undefined;
    if (!this.#placement.handsBack) return this.#engine.require(sessionId);
    return loadSession(this.#engine.store, sessionId);
  }

  /** A summary was stored by this process's engine: every process's watchers are told, and a finished session is handed back. */
  #summaryStored(info: SessionInfo): void {
    const change: ListChange = { type: 'sessions.changed', session: info };
    if (this.#listRelay === undefined) {
      this.#listWatchers.changed(info);
      return;
    }
    this.#listRelay.publish(change);
    // Not from inside the engine's report of the write that stored it: a microtask later.
    if (!isActive(info.status)) queueMicrotask(() => void this.#placed.letGo(info.sessionId));
  }

  /** A list change published by any node: this node's watchers are told, and it keeps the deadline of a waiting session too. */
  #listChanged(change: ListChange, frame: string): void {
    this.#listWatchers.relay(change, frame);
    if (change.type === 'sessions.changed') void this.#engine.timers.followDeadline(change.session);
  }

  async #rejectForTimeout(sessionId: string, stepId: string): Promise<void> {
    try {
      await this.reject(timeoutRejection(sessionId, stepId));
    } catch (error) {
      // Decided, invalidated, cancelled or deleted meanwhile: nothing is left to time out.
      if (error instanceof SessionError && error.code !== 'INTERNAL') return;
      // This node stops while its rejection is on its way (routed to the owner): the deadline is in the
      // log, so a live node's clock or the next start (`armStored`) times the call out. Nothing failed.
      if (this.#shuttingDown) return;
      this.#report(`rejecting the timed-out approval of session ${sessionId} failed`, error);
    }
  }

  /** A question nobody answered in time is closed by the server (PROTOCOL.md §25.2), where the session can run. */
  async #closeForTimeout(sessionId: string, stepId: string): Promise<void> {
    try {
      await this.provideInput({ sessionId, stepId, timedOut: true });
    } catch (error) {
      // Answered, invalidated, cancelled or deleted meanwhile: nothing is left to time out.
      if (error instanceof SessionError && error.code !== 'INTERNAL') return;
      // Stopping while it is on its way: the deadline is in the log, a live node or the next start closes it.
      if (this.#shuttingDown) return;
      this.#report(`closing the timed-out question of session ${sessionId} failed`, error);
    }
  }

  /**
   * Run a command where the session is placed: here when this process may run it (or can take it),
   * else on the node that runs it. The requester's events of the session are held until its
   * answer arrives, which then replaces the plain copy of the event it is (or precedes the events it caused).
   */
  #command(op: CommandOp, sessionId: string, reply: ReplyTo | undefined, input?: unknown): Promise<unknown> {
    // A single process runs every command here, straight away: nothing to claim, route or hold.
    if (!this.#placement.handsBack) return this.#apply(op, sessionId, reply, input);
    return this.#placed.run(op, sessionId, reply, input);
  }

  /** The command itself, on the engine (its promise as is: a single process adds no step between the request and its turn). */
  #apply(op: CommandOp, sessionId: string, reply: ReplyTo | undefined, input: unknown): Promise<unknown> {
    if (op === 'delete') return this.#delete(sessionId, reply);
    // The one untyped edge: a routed command's input arrives as JSON from the node that took the request.
    const run = COMMANDS[op] as CommandRun<typeof op>;
    return run(this.#engine, sessionId, reply, input as CommandTypes[typeof op]['input']);
  }

  /** The session is deleted here; the list of every process, and its followers elsewhere, are told; it is handed back. */
  async #delete(sessionId: string, reply: ReplyTo | undefined): Promise<SessionDeletedEvent> {
    const deleted = await deleteSession(this.#engine, sessionId, reply);
    this.#listDeleted(sessionId);
    if (this.#placement.handsBack) {
      await this.#fanout.deleted(deleted);
      await this.#placed.letGo(sessionId);
    }
    return deleted;
  }

  /** Every process's list watchers are told of a deletion. */
  #listDeleted(sessionId: string): void {
    if (this.#listRelay === undefined) this.#listWatchers.removed(sessionId);
    else this.#listRelay.publish({ type: 'sessions.removed', sessionId });
  }
}

/** A session core whose start-up recovery is done: what a server starts with. */
export async function startSessionManager(deps: SessionManagerDeps): Promise<SessionManager> {
  const manager = new SessionManager(deps);
  await manager.ready;
  return manager;
}
