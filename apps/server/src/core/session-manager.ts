import { toSnapshot, type SessionDeletedEvent, type SessionInfo, type SessionOptions, type SessionSnapshotData, type SessionState, type ShareRecord } from '@interthought/protocol';
import { SessionEngine, type SessionEngineDeps } from './sessions/session-engine.js';
import { isActive } from '@interthought/protocol';
import { createSession, forkSession, importSession } from './commands/create-session.js';
import { correctStep } from './commands/correct-step.js';
import { decideCall } from './commands/decide-call.js';
import { sendMessage } from './commands/send-message.js';
import { cancelSession, pauseSession, resumeSession } from './commands/lifecycle.js';
import { deleteSession } from './commands/delete-session.js';
import { shareSession, unshareSession } from './commands/share-links.js';
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
import { SINGLE_PROCESS, RUN_STARTING_OPS, RouteError, type CommandOp, type RoutedCommand, type SessionPlacement } from './ports/session-placement.js';
import type { HeldRequest, SessionFanout } from './ports/session-fanout.js';
import type { ListChange, ListRelay } from './ports/list-relay.js';
import { SessionError, notFound } from './session-error.js';
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

/** What a command carries besides its session: a correction, a decision, a message or a share link. */
type CommandInput = CorrectStepInput | DecideInput | MessageInput | ShareInput | UnshareInput;

/** An answer that never comes (its batch could not be written) stops holding the requester's events after this long. */
const HOLD_LIMIT_MS = 10_000;
const RETRY_MS = 100;

function reportToConsole(context: string, error: unknown): void {
  console.error(`[session-core] ${context}:`, error);
}

function asSessionError(error: RouteError): SessionError {
  const code = error.code === 'NOT_OWNER' || error.code === 'NO_ANSWER' ? 'INTERNAL' : error.code;
  return new SessionError(code, error.message);
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
        summaryStored: (info) => this.#summaryStored(info),
      },
    });
    this.#fanout = cluster?.fanout ?? localFanout(this.#engine);
    this.ready = this.#engine.ready;
    this.#listRelay?.receive((change, frame) => this.#listChanged(change, frame));
    this.#placement.serve({
      routed: (command, send) => this.#serveRouted(command, send),
      lost: (sessionId) => this.#engine.evict(sessionId, 'another node owns the session now'),
      orphaned: (sessionId) => void this.#takeOver(sessionId).catch((error: unknown) => this.#report(`taking over session ${sessionId} failed`, error)),
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
        const created = await this.#createElsewhere(placed.nodeId, input, reply);
        if (created !== undefined) return created;
      }
    }
    // The new session is placed here (a cluster's store takes its lease before its first event).
    return createSession(this.#engine, input, reply, (session, peer) => this.#fanout.attachCreator(session, peer));
  }

  /**
   * Create the session on `nodeId` (a node that can run its agent): its `session.created` comes
   * back to the requester, who then follows the new session from seq 0 as a local creator does.
   * Undefined when that node is gone (the session is then created here).
   */
  async #createElsewhere(nodeId: string, input: CreateSessionInput, reply: ReplyTo | undefined): Promise<SessionInfo | undefined> {
    const command: RoutedCommand = {
      op: 'create',
      sessionId: '',
      input,
      peer: this.#routedPeer(reply),
      ...(reply?.requestId === undefined ? {} : { requestId: reply.requestId }),
    };
    let info: SessionInfo;
    try {
      info = (await this.#placement.route(nodeId, command, (frame) => reply?.peer.send(frame))) as SessionInfo;
    } catch (error) {
      if (!(error instanceof RouteError)) throw error;
      if (error.code === 'NOT_OWNER') return undefined;
      throw asSessionError(error);
    }
    if (reply !== undefined) await this.#fanout.subscribe(info.sessionId, { peer: reply.peer }, 0);
    return info;
  }

  #routedPeer(reply: ReplyTo | undefined): RoutedCommand['peer'] {
    return reply === undefined ? { id: 'rest' } : { id: reply.peer.id, ...(reply.peer.quota === undefined ? {} : { quota: reply.peer.quota }) };
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

  message(input: MessageInput, reply?: ReplyTo): Promise<MessageResult> {
    return this.#command('message', input.sessionId, reply, input) as Promise<MessageResult>;
  }

  /** The fork is created here; in a cluster, idle, it is handed back at once (the first message claims it again). */
  async fork(input: ForkInput, reply?: ReplyTo): Promise<SessionInfo> {
    await this.#engine.open();
    const source = await this.#readSource(input.sessionId);
    if (source === undefined) throw notFound(input.sessionId);
    const info = await forkSession(this.#engine, source, input.stepId, reply, (session, peer) => this.#fanout.attachCreator(session, peer), input.ownedBy);
    await this.#letGo(info.sessionId);
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
    await this.#letGo(info.sessionId);
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
    if (!isActive(info.status)) queueMicrotask(() => void this.#letGo(info.sessionId));
  }

  /** A list change published by any node: this node's watchers are told, and it keeps the deadline of a waiting session too. */
  #listChanged(change: ListChange, frame: string): void {
    this.#listWatchers.relay(frame);
    if (change.type === 'sessions.changed') void this.#engine.timers.followDeadline(change.session);
  }

  async #rejectForTimeout(sessionId: string, stepId: string): Promise<void> {
    try {
      await this.reject(timeoutRejection(sessionId, stepId));
    } catch (error) {
      // Decided, invalidated, cancelled or deleted meanwhile: nothing is left to time out.
      if (error instanceof SessionError && error.code !== 'INTERNAL') return;
      this.#report(`rejecting the timed-out approval of session ${sessionId} failed`, error);
    }
  }

  /** A session whose owner died: take it over (its log is folded and it is marked interrupted, as after a restart). */
  async #takeOver(sessionId: string): Promise<void> {
    const claim = await this.#placement.claim(sessionId, { takeover: true });
    if (!claim.here) return;
    const snapshot = await this.#engine.snapshot(sessionId);
    if (snapshot === undefined || !isActive(snapshot.session.status)) await this.#letGo(sessionId);
  }

  /** Nothing of the session runs here any more: once what it queued is written, hand it back and drop it from memory. */
  async #letGo(sessionId: string): Promise<void> {
    if (!this.#placement.handsBack || !this.#placement.holds(sessionId)) return;
    // Its last events (a takeover's `interrupted`, a final status) are written while it is held.
    await this.#engine.flushed();
    if (!this.#placement.holds(sessionId)) return;
    // A command may have revived it meanwhile (a correction of a finished session).
    const snapshot = await this.#engine.snapshot(sessionId);
    if (snapshot !== undefined && isActive(snapshot.session.status)) return;
    this.#engine.evict(sessionId, 'the session finished');
    try {
      await this.#placement.release(sessionId);
    } catch (error) {
      this.#report(`releasing the lease of session ${sessionId} failed`, error);
    }
  }

  /**
   * Run a command where the session is placed: here when this process may run it (or can take it),
   * else on the node that runs it. The requester's events of the session are held until its
   * answer arrives, which then replaces the plain copy of the event it is (or precedes the events it caused).
   */
  #command(op: CommandOp, sessionId: string, reply: ReplyTo | undefined, input?: CommandInput): Promise<unknown> {
    // A single process runs every command here, straight away: nothing to claim, route or hold.
    if (!this.#placement.handsBack) return this.#apply(op, sessionId, reply, input);
    return this.#placed(op, sessionId, reply, input);
  }

  async #placed(op: CommandOp, sessionId: string, reply: ReplyTo | undefined, input?: CommandInput): Promise<unknown> {
    if (typeof sessionId !== 'string') throw notFound(sessionId);
    const held = this.#fanout.hold(sessionId, reply);
    const deadline = Date.now() + this.#placement.takeoverWaitMs;
    try {
      for (;;) {
        const placed = await this.#claim(sessionId, RUN_STARTING_OPS.has(op));
        if (placed.here) return await this.#runHere(op, sessionId, held.reply, input);
        if (placed.handOver === true && !(await this.#handOver(sessionId))) return await this.#runHere(op, sessionId, held.reply, input);
        const command: RoutedCommand = {
          op,
          sessionId,
          peer: this.#routedPeer(reply),
          ...(input === undefined ? {} : { input }),
          ...(reply?.requestId === undefined ? {} : { requestId: reply.requestId }),
        };
        try {
          return await this.#placement.route(placed.nodeId, command, (frame) => held.answered(frame));
        } catch (error) {
          if (!(error instanceof RouteError)) throw error;
          // The owner died or let the session go: once its hold is gone, this node takes it. Not
          // after NO_ANSWER: that owner got the command (it was resent to it) and may have run it.
          if (error.code === 'NOT_OWNER' && Date.now() < deadline) {
            await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
            continue;
          }
          throw asSessionError(error);
        }
      }
    } catch (error) {
      held.release();
      throw error;
    } finally {
      this.#releaseLater(held);
    }
  }

  #releaseLater(held: HeldRequest): void {
    setTimeout(() => held.release(), HOLD_LIMIT_MS).unref();
  }

  async #claim(sessionId: string, startsRun: boolean) {
    try {
      return await this.#placement.claim(sessionId, startsRun ? { startsRun } : undefined);
    } catch (error) {
      if (error instanceof SessionError && error.code === 'SESSION_NOT_FOUND') throw notFound(sessionId);
      throw error;
    }
  }

  /**
   * This node holds a session whose agent it cannot run (its worker left), and another node can:
   * once what it queued is written, the session is dropped and handed back for that node to take.
   * False when it still has a run here (it then stays).
   */
  async #handOver(sessionId: string): Promise<boolean> {
    const session = await this.#engine.find(sessionId);
    if (session?.run !== undefined) return false;
    await this.#engine.flushed();
    if (!this.#placement.holds(sessionId)) return true;
    this.#engine.evict(sessionId, 'a node with a worker for its agent runs it now');
    await this.#placement.release(sessionId);
    return true;
  }

  /** Whether this node may run a command routed to it: it holds the session, or (for one that starts a run) takes it now. */
  async #mayServe(command: RoutedCommand): Promise<boolean> {
    if (!RUN_STARTING_OPS.has(command.op)) return this.#placement.holds(command.sessionId);
    // Sent here because a worker for the session's agent is connected here, or because this node holds it.
    const placed = await this.#claim(command.sessionId, true);
    if (placed.here) return true;
    if (placed.handOver === true) return !(await this.#handOver(command.sessionId));
    return false;
  }

  /** A command routed here by the node of its requester. */
  async #serveRouted(command: RoutedCommand, send: (frame: string) => void): Promise<unknown> {
    if (command.op === 'create') return this.#serveCreate(command, send);
    if (!(await this.#mayServe(command))) throw new RouteError('NOT_OWNER', `This node does not own session ${command.sessionId}.`);
    // The outcome goes back after the answer: a status change's answer is its event, sent once written.
    let answered: () => void = () => undefined;
    const answeredOnce = new Promise<void>((resolve) => (answered = resolve));
    const forward = (frame: string): void => {
      send(frame);
      answered();
    };
    const peer: Peer = { id: command.peer.id, ...(command.peer.quota === undefined ? {} : { quota: command.peer.quota }), send: forward, sendLive: forward };
    const reply: ReplyTo = { peer, ...(command.requestId === undefined ? {} : { requestId: command.requestId }) };
    const result = await this.#runHere(command.op as CommandOp, command.sessionId, reply, command.input as CommandInput | undefined);
    // A link made or revoked is answered by its result alone: no frame goes to the peer, so none is waited for.
    if (command.op === 'share' || command.op === 'unshare') return result;
    await Promise.race([answeredOnce, new Promise((resolve) => setTimeout(resolve, HOLD_LIMIT_MS).unref())]);
    return result;
  }

  /** A session created here for a requester on another node: it gets `session.created`, and follows the session from there. */
  async #serveCreate(command: RoutedCommand, send: (frame: string) => void): Promise<SessionInfo> {
    const peer: Peer = { id: command.peer.id, ...(command.peer.quota === undefined ? {} : { quota: command.peer.quota }), send, sendLive: send };
    const reply: ReplyTo = { peer, ...(command.requestId === undefined ? {} : { requestId: command.requestId }) };
    return createSession(this.#engine, command.input as CreateSessionInput, reply, () => undefined);
  }

  /** The command, run by this process's engine on a session placed here. */
  async #runHere(op: CommandOp, sessionId: string, reply: ReplyTo | undefined, input: CommandInput | undefined): Promise<unknown> {
    try {
      return await this.#apply(op, sessionId, reply, input);
    } catch (error) {
      // A refused command may leave this node holding a session it does not run.
      const snapshot = await this.#engine.snapshot(sessionId).catch(() => undefined);
      if (snapshot === undefined || !isActive(snapshot.session.status)) await this.#letGo(sessionId);
      throw error;
    }
  }

  /** The command itself, on the engine (its promise as is: a single process adds no step between the request and its turn). */
  #apply(op: CommandOp, sessionId: string, reply: ReplyTo | undefined, input: CommandInput | undefined): Promise<unknown> {
    const engine = this.#engine;
    switch (op) {
      case 'correct':
        return correctStep(engine, { ...(input as CorrectStepInput), sessionId }, reply);
      case 'approve':
        return decideCall(engine, { ...(input as DecideInput), sessionId }, 'approved', reply);
      case 'reject':
        return decideCall(engine, { ...(input as DecideInput), sessionId }, 'rejected', reply);
      case 'message':
        return sendMessage(engine, { ...(input as MessageInput), sessionId }, reply);
      case 'share':
        return shareSession(engine, { ...(input as ShareInput), sessionId });
      case 'unshare':
        return unshareSession(engine, { ...(input as UnshareInput), sessionId });
      case 'pause':
        return pauseSession(engine, sessionId, reply);
      case 'resume':
        return resumeSession(engine, sessionId, reply);
      case 'cancel':
        return cancelSession(engine, sessionId, reply);
      case 'delete':
        return this.#delete(sessionId, reply);
    }
  }

  /** The session is deleted here; the list of every process, and its followers elsewhere, are told; it is handed back. */
  async #delete(sessionId: string, reply: ReplyTo | undefined): Promise<SessionDeletedEvent> {
    const deleted = await deleteSession(this.#engine, sessionId, reply);
    this.#listDeleted(sessionId);
    if (this.#placement.handsBack) {
      await this.#fanout.deleted(deleted);
      await this.#letGo(sessionId);
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
