import { toSnapshot, type SessionCreated, type SessionDeletedEvent, type SessionInfo, type SessionSnapshotData, type SessionsWatching, type ShareRecord } from '@interthought/protocol';
import { ACTIVE_STATUSES } from '../core/sessions/live-session.js';
import type { Peer, ReplyTo } from '../core/fanout/peer.js';
import { SessionError, notFound } from '../core/session-error.js';
import type { SessionListWatchers } from '../core/fanout/session-list-watchers.js';
import { loadSession } from '../core/persistence/session-loader.js';
import type { SessionManager } from '../core/sessions/session-manager.js';
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
} from '../core/session-service.js';
import { listInScope } from '../core/fanout/session-list-scope.js';
import type { SessionPage } from '../core/persistence/event-store.js';
import { readSessionExport, type SessionExport } from '../core/transfer/session-export.js';
import type { ParsedImport } from '../core/transfer/session-import.js';
import { EventStoreError } from '../core/persistence/event-store.js';
import { encodeBatchMessage } from './batch-message.js';
import { RoutedCommandError, type NodeBus, type RoutedCommand } from './node-bus.js';
import type { OwnedAppends } from './owned-appends.js';
import type { Ownership } from './ownership.js';
import { sessionKeys } from './redis-keys.js';
import type { RedisEventStore } from './redis-event-store.js';
import type { SessionChannel } from './session-channel.js';
import type { SessionFeeds } from './session-feeds.js';

type Op = RoutedCommand['op'];
/** What a command carries besides its session: a correction, a decision, a message or a share link. */
type CommandInput = CorrectStepInput | DecideInput | MessageInput | ShareInput | UnshareInput;


export interface ClusterSessionsDeps {
  local: SessionManager;
  store: RedisEventStore;
  /** The store as the local core writes to it (fenced appends are counted there). */
  appends: OwnedAppends;
  ownership: Ownership;
  feeds: SessionFeeds;
  channel: SessionChannel;
  bus: NodeBus;
  /** This node's clients following the list of sessions (changes come from every node through the bus). */
  listWatchers: SessionListWatchers;
  /** How long a command waits for a dead owner's lease to expire before it gives up. */
  takeoverWaitMs: number;
  report: (context: string, error: unknown) => void;
}

/** An answer that never comes (its batch could not be written) stops holding the requester's events after this long. */
const HOLD_LIMIT_MS = 10_000;
const RETRY_MS = 100;

function asSessionError(error: RoutedCommandError): SessionError {
  const code = error.code === 'NOT_OWNER' || error.code === 'NO_ANSWER' ? 'INTERNAL' : error.code;
  return new SessionError(code, error.message);
}

/**
 * The session service of a cluster node. Any node serves any client: every session is followed
 * through its log and channel (`SessionFeeds`), and each command runs on the node that owns the
 * session (holds its lease). A command for a session another node owns is routed there
 * (`NodeBus`) and answered on the requester's connection; a session nobody owns is taken here.
 * The local `SessionManager` runs only the sessions this node owns.
 */
export class ClusterSessions implements SessionService {
  constructor(private readonly deps: ClusterSessionsDeps) {
    deps.bus.serve((command, send) => this.#serveRouted(command, send));
  }

  get stats(): SessionCoreStats {
    const { local, ownership, bus, store, feeds } = this.deps;
    return {
      ...local.stats,
      cluster: {
        nodeId: ownership.nodeId,
        redis: store.redis.status === 'ready' ? 'ready' : 'reconnecting',
        ...ownership.stats,
        fencedAppends: this.deps.appends.fencedAppends,
        routedCommands: bus.stats.routed,
        servedCommands: bus.stats.served,
        followedSessions: feeds.followed,
      },
    };
  }

  async create(input: CreateSessionInput, reply?: ReplyTo): Promise<SessionInfo> {
    // The store takes the new session's lease before its first event: it runs here.
    const info = await this.deps.local.create(input);
    if (reply !== undefined) {
      const created: SessionCreated = { type: 'session.created', session: info };
      if (reply.requestId !== undefined) created.requestId = reply.requestId;
      reply.peer.send(JSON.stringify(created));
      await this.deps.feeds.subscribe(info.sessionId, { peer: reply.peer }, 0);
    }
    return info;
  }

  subscribe(sessionId: string, reply: ReplyTo, afterSeq?: number): Promise<void> {
    return this.deps.feeds.subscribe(sessionId, reply, afterSeq);
  }

  async unsubscribe(sessionId: string, peer: Peer): Promise<void> {
    if (this.deps.feeds.unsubscribe(sessionId, peer)) return;
    if ((await this.deps.store.getSession(sessionId)) === undefined) throw notFound(sessionId);
  }

  detach(peer: Peer): void {
    this.deps.feeds.detach(peer);
    this.deps.listWatchers.remove(peer);
  }

  subscriptionCount(peer: Peer): number {
    return this.deps.feeds.count(peer);
  }

  isSubscribed(peer: Peer, sessionId: string): boolean {
    return this.deps.feeds.follows(peer, sessionId);
  }

  async correct(input: CorrectStepInput, reply?: ReplyTo): Promise<CorrectionResult> {
    return (await this.#command('correct', input.sessionId, reply, input)) as CorrectionResult;
  }

  /** Decisions go where the session is run, like every command: of two at once, its owner applies one first. */
  async approve(input: DecideInput, reply?: ReplyTo): Promise<void> {
    await this.#command('approve', input.sessionId, reply, input);
  }

  async reject(input: DecideInput, reply?: ReplyTo): Promise<void> {
    await this.#command('reject', input.sessionId, reply, input);
  }

  async message(input: MessageInput, reply?: ReplyTo): Promise<MessageResult> {
    return (await this.#command('message', input.sessionId, reply, input)) as MessageResult;
  }

  /**
   * The source is read from the shared store, whoever runs it; the fork is created here (its store
   * takes the lease, as for `create`) and, idle, let go at once: the first message claims it again.
   */
  async fork(input: ForkInput, reply?: ReplyTo): Promise<SessionInfo> {
    const source = await loadSession(this.deps.store, input.sessionId);
    if (source === undefined) throw notFound(input.sessionId);
    const info = await this.deps.local.forkFrom(source.state, source.options, input.stepId, undefined, input.ownedBy);
    if (reply !== undefined) {
      const created: SessionCreated = { type: 'session.created', session: info };
      if (reply.requestId !== undefined) created.requestId = reply.requestId;
      reply.peer.send(JSON.stringify(created));
      await this.deps.feeds.subscribe(info.sessionId, { peer: reply.peer }, 0);
    }
    await this.#letGo(info.sessionId);
    return info;
  }

  async pause(sessionId: string, reply?: ReplyTo): Promise<void> {
    await this.#command('pause', sessionId, reply);
  }

  async resume(sessionId: string, reply?: ReplyTo): Promise<void> {
    await this.#command('resume', sessionId, reply);
  }

  async cancel(sessionId: string, reply?: ReplyTo): Promise<void> {
    await this.#command('cancel', sessionId, reply);
  }

  async delete(sessionId: string, reply?: ReplyTo): Promise<SessionDeletedEvent> {
    return (await this.#command('delete', sessionId, reply)) as SessionDeletedEvent;
  }

  async watchList(reply: ReplyTo, limit: number, scope?: ListScope): Promise<SessionInfo[]> {
    const { peer } = reply;
    const watchers = this.deps.listWatchers;
    watchers.hold(peer, scope);
    let page: SessionPage;
    try {
      page = await listInScope(this.deps.store, scope === undefined ? { limit } : { limit, scope });
    } catch (error) {
      watchers.remove(peer);
      throw error;
    }
    const watching: SessionsWatching = { type: 'sessions.watching', sessions: page.sessions };
    if (reply.requestId !== undefined) watching.requestId = reply.requestId;
    peer.send(JSON.stringify(watching));
    watchers.release(peer);
    return page.sessions;
  }

  unwatchList(peer: Peer): void {
    this.deps.listWatchers.remove(peer);
  }

  async snapshot(sessionId: string): Promise<SessionSnapshotData | undefined> {
    if (this.deps.ownership.holds(sessionId)) return this.deps.local.snapshot(sessionId);
    const loaded = await loadSession(this.deps.store, sessionId);
    return loaded === undefined ? undefined : toSnapshot(loaded.state);
  }

  /** Read from the shared store, whoever runs the session; what this node queued for one it runs is written first. */
  async exportSession(sessionId: string): Promise<SessionExport> {
    if (this.deps.ownership.holds(sessionId)) await this.deps.local.flushed();
    const exported = await readSessionExport(this.deps.store, sessionId);
    if (exported === undefined) throw notFound(sessionId);
    return exported;
  }

  /** Stored by this node's core (its store takes the new session's lease, as for `create`), then let go: nothing runs it. */
  async importSession(parsed: ParsedImport, ownedBy?: Actor): Promise<SessionInfo> {
    const info = await this.deps.local.importSession(parsed, ownedBy);
    await this.#letGo(info.sessionId);
    return info;
  }

  list(options: { limit: number; before?: string; scope?: ListScope }): Promise<SessionPage> {
    return this.deps.local.list(options);
  }

  /** From the node that runs the session, else from the shared store (the owner and links are in its log). */
  async accessFacts(sessionId: string): Promise<SessionAccessFacts | undefined> {
    if (this.deps.ownership.holds(sessionId)) return this.deps.local.accessFacts(sessionId);
    const loaded = await loadSession(this.deps.store, sessionId);
    return loaded === undefined ? undefined : { owner: loaded.state.session.owner, shares: loaded.state.shares };
  }

  /** Links go into the session's log, so they are made where it is run, like every command. */
  async share(input: ShareInput): Promise<ShareRecord> {
    return (await this.#command('share', input.sessionId, undefined, input)) as ShareRecord;
  }

  async unshare(input: UnshareInput): Promise<void> {
    await this.#command('unshare', input.sessionId, undefined, input);
  }

  sharingKey(): Promise<string> {
    return this.deps.store.sharingKey();
  }

  async shutdown(): Promise<void> {
    await this.deps.ownership.stop({ release: false });
    await this.deps.local.shutdown();
    // Everything is written: hand the sessions over so other nodes take them at once, not after the TTL.
    await this.deps.ownership.stop({ release: true });
    await this.deps.bus.close();
    await this.deps.feeds.close();
    await this.deps.channel.close();
  }

  /** A summary stored here (by the session core of this node): tell every node's watchers; let a finished session go. */
  onLocalListChange(frame: string): void {
    this.deps.bus.publishList(frame).catch((error: unknown) => this.deps.report('publishing a list change failed', error));
    const change = JSON.parse(frame) as { type: string; session?: SessionInfo };
    const session = change.session;
    // Not from inside the core's report of the write that stored it: a microtask later.
    if (change.type === 'sessions.changed' && session !== undefined && !ACTIVE_STATUSES.has(session.status)) queueMicrotask(() => void this.#letGo(session.sessionId));
  }

  /** A session whose owner died: take it over (its log is folded and it is marked interrupted, as after a restart). */
  async takeOver(sessionId: string): Promise<void> {
    const claim = await this.deps.ownership.claim(sessionId, { takeover: true });
    if (!claim.here) return;
    const snapshot = await this.deps.local.snapshot(sessionId);
    if (snapshot === undefined || !ACTIVE_STATUSES.has(snapshot.session.status)) await this.#letGo(sessionId);
  }

  /** This node lost the session's lease: stop running it here (nothing of it is written any more). */
  lost(sessionId: string): void {
    this.deps.local.evict(sessionId, 'another node owns the session now');
  }

  /** Nothing of the session runs here any more: once what it queued is written, give its lease back and drop it from memory. */
  async #letGo(sessionId: string): Promise<void> {
    if (!this.deps.ownership.holds(sessionId)) return;
    // Its last events (a takeover's `interrupted`, a final status) are written under the lease.
    await this.deps.local.flushed();
    if (!this.deps.ownership.holds(sessionId)) return;
    // A command may have revived it meanwhile (a correction of a finished session).
    const snapshot = await this.deps.local.snapshot(sessionId);
    if (snapshot !== undefined && ACTIVE_STATUSES.has(snapshot.session.status)) return;
    this.deps.local.evict(sessionId, 'the session finished');
    try {
      await this.deps.ownership.release(sessionId);
    } catch (error) {
      this.deps.report(`releasing the lease of session ${sessionId} failed`, error);
    }
  }

  /**
   * Run a command where the session is owned: here when this node holds (or can take) its lease,
   * else on its owner. The requester's events of the session are held until its answer arrives,
   * which then replaces the plain copy of the event it is (or precedes the events it caused).
   */
  async #command(op: Op, sessionId: string, reply: ReplyTo | undefined, input?: CommandInput): Promise<unknown> {
    if (typeof sessionId !== 'string') throw notFound(sessionId);
    const held = reply === undefined ? undefined : this.deps.feeds.hold(sessionId, reply.peer);
    const release = (): void => held?.release();
    const answered = (frame: string): void => {
      held?.answer(frame);
      release();
    };
    const deadline = Date.now() + this.deps.takeoverWaitMs;
    try {
      for (;;) {
        const claim = await this.#claim(sessionId);
        if (claim.here) {
          const catcher: ReplyTo | undefined = reply && {
            peer: { id: reply.peer.id, ...(reply.peer.quota === undefined ? {} : { quota: reply.peer.quota }), send: answered, sendLive: answered },
            ...(reply.requestId === undefined ? {} : { requestId: reply.requestId }),
          };
          return await this.#runHere(op, sessionId, catcher, input);
        }
        const command: RoutedCommand = {
          op,
          sessionId,
          peer: reply === undefined ? { id: 'rest' } : { id: reply.peer.id, ...(reply.peer.quota === undefined ? {} : { quota: reply.peer.quota }) },
          ...(input === undefined ? {} : { input }),
          ...(reply?.requestId === undefined ? {} : { requestId: reply.requestId }),
        };
        try {
          return await this.deps.bus.call(claim.holder.nodeId, command, answered);
        } catch (error) {
          if (!(error instanceof RoutedCommandError)) throw error;
          // The owner died or let the session go: once its lease is gone, this node takes it. Not
          // after NO_ANSWER: that owner got the command (it was resent to it) and may have run it.
          if (error.code === 'NOT_OWNER' && Date.now() < deadline) {
            await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
            continue;
          }
          throw asSessionError(error);
        }
      }
    } catch (error) {
      release();
      throw error;
    } finally {
      setTimeout(release, HOLD_LIMIT_MS).unref();
    }
  }

  async #claim(sessionId: string) {
    try {
      return await this.deps.ownership.claim(sessionId);
    } catch (error) {
      if (error instanceof EventStoreError && error.code === 'SESSION_NOT_FOUND') throw notFound(sessionId);
      throw error;
    }
  }

  /** A command routed here by the node of its requester. */
  async #serveRouted(command: RoutedCommand, send: (frame: string) => void): Promise<unknown> {
    if (!this.deps.ownership.holds(command.sessionId)) {
      throw new RoutedCommandError('NOT_OWNER', `Node ${this.deps.ownership.nodeId} does not own session ${command.sessionId}.`);
    }
    // The outcome goes back after the answer: a status change's answer is its event, sent once written.
    let answered: () => void = () => undefined;
    const answer = new Promise<void>((resolve) => (answered = resolve));
    const forward = (frame: string): void => {
      send(frame);
      answered();
    };
    const peer: Peer = { id: command.peer.id, ...(command.peer.quota === undefined ? {} : { quota: command.peer.quota }), send: forward, sendLive: forward };
    const reply: ReplyTo = { peer, ...(command.requestId === undefined ? {} : { requestId: command.requestId }) };
    const result = await this.#runHere(command.op, command.sessionId, reply, command.input as CommandInput | undefined);
    // A link made or revoked is answered by its result alone: no frame goes to the peer, so none is waited for.
    if (command.op === 'share' || command.op === 'unshare') return result;
    await Promise.race([answer, new Promise((resolve) => setTimeout(resolve, HOLD_LIMIT_MS).unref())]);
    return result;
  }

  async #runHere(op: Op, sessionId: string, reply: ReplyTo | undefined, input: CommandInput | undefined): Promise<unknown> {
    const { local } = this.deps;
    try {
      switch (op) {
        case 'correct':
          return await local.correct({ ...(input as CorrectStepInput), sessionId }, reply);
        case 'approve':
          return await local.approve({ ...(input as DecideInput), sessionId }, reply);
        case 'reject':
          return await local.reject({ ...(input as DecideInput), sessionId }, reply);
        case 'message':
          return await local.message({ ...(input as MessageInput), sessionId }, reply);
        case 'share':
          return await local.share({ ...(input as ShareInput), sessionId });
        case 'unshare':
          return await local.unshare({ ...(input as UnshareInput), sessionId });
        case 'pause':
          return await local.pause(sessionId, reply);
        case 'resume':
          return await local.resume(sessionId, reply);
        case 'cancel':
          return await local.cancel(sessionId, reply);
        case 'delete': {
          const deleted = await local.delete(sessionId, reply);
          await this.#announceDeleted(deleted);
          await this.#letGo(sessionId);
          return deleted;
        }
      }
    } catch (error) {
      // A refused command may leave this node holding a session it does not run.
      const snapshot = await local.snapshot(sessionId).catch(() => undefined);
      if (snapshot === undefined || !ACTIVE_STATUSES.has(snapshot.session.status)) await this.#letGo(sessionId);
      throw error;
    }
  }

  /** Every node's followers of the session get its last event on its channel, after everything else. */
  async #announceDeleted(deleted: SessionDeletedEvent): Promise<void> {
    await this.deps.store.redis.spublish(sessionKeys(deleted.sessionId).channel, encodeBatchMessage(deleted.seq, [JSON.stringify(deleted)]));
  }
}
