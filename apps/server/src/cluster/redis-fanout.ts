import { toSnapshot, type SessionDeletedEvent, type SessionSnapshot, type SessionSubscribed } from '@interthought/protocol';
import { withRequestId } from '../core/fanout/answer.js';
import { asAnswer, frameOf, storedFrame, storedLiveEventFrame, type Frame } from '../core/fanout/frame.js';
import type { Peer, ReplyTo } from '../core/fanout/peer.js';
import { badCursor, notFound } from '../core/session-error.js';
import { loadSession } from '../core/persistence/session-loader.js';
import type { SessionFanout, HeldRequest } from '../core/ports/session-fanout.js';
import type { LiveSession } from '../core/sessions/live-session.js';
import { encodeBatchMessage } from './batch-message.js';
import { sessionKeys } from './redis-keys.js';
import type { Redis } from 'ioredis';
import type { ClusterLog } from './cluster-log.js';
import type { SessionChannel } from './session-channel.js';

/** One client of this node following a session. */
interface Viewer {
  peer: Peer;
  /** The last seq it got (from its answer, a replay or the live stream). */
  cursor: number;
  /** Events held for it while its answer is being made or a request of its is in flight. */
  queue: Array<{ seq: number; frame: Frame }>;
  catchingUp: boolean;
  /** Requests of this viewer on this session still waiting for their answer. */
  holds: number;
  /** The requester's copy (with `requestId`) to send in place of the plain event of that seq. */
  swaps: Map<number, Frame>;
}

/** A viewer's request in flight, as the feed holds it: see `RedisFanout.hold`. */
interface ViewerHold {
  answer(frame: Frame): void;
  release(): void;
}

/** This node's view of one session's log: the viewers, and the last seq the channel or log gave it. */
interface Feed {
  sessionId: string;
  viewers: Map<Peer, Viewer>;
  lastSeq: number;
  /** Settles once the channel is subscribed and the log's last seq read: viewers start after it. */
  ready: Promise<void>;
  /** Batches are applied one after another, after `ready` (a gap is filled from the log first). */
  work: Promise<void>;
  ended: boolean;
}

/** The seq of a stored event of the live stream (parsing it, once, on this first read). */
function seqOf(frame: Frame): number {
  return frame.event?.seq ?? -1;
}


/**
 * How the clients of one cluster node follow sessions, whichever node runs them. Every appended
 * batch is published on the session's channel by the store's append script; this node
 * subscribes to the channel of each session its clients follow, then reads the log after their
 * cursors, and merges the two by seq: a gap (a lost message, a reconnect) is filled from the log,
 * never skipped, and a frame goes out exactly as it was stored, byte for byte, on every node. The
 * node that owns a session also hands each batch it wrote to its feed as soon as Redis answered
 * (the same frames, merged by seq the same way), so its own viewers do not wait for the publish
 * to come back from Redis.
 *
 * A viewer's own request on a session (a pause, a correction …) holds that session's events for
 * it until the answer arrives from the node that ran the request, so the answer precedes the
 * events it caused and a requester's copy of an event replaces the plain one.
 */
export class RedisFanout implements SessionFanout {
  readonly #feeds = new Map<string, Feed>();

  constructor(
    private readonly store: ClusterLog,
    /** The node's Redis connection: a deletion is published with it. */
    private readonly publisher: Redis,
    private readonly channel: SessionChannel,
    private readonly report: (context: string, error: unknown) => void,
  ) {
    // Batches reach the feeds from the channel (any node's appends) and from this node's own appends.
    channel.listen({
      onBatch: (sessionId, frames, firstSeq) => this.onBatch(sessionId, frames, firstSeq),
      onResubscribed: () => this.refillAll(),
      onError: (error) => report('the session channel failed', error),
    });
    store.onWritten((sessionId, frames, firstSeq) => this.onBatch(sessionId, frames, firstSeq));
  }

  /** Sessions followed by at least one client of this node. */
  get followed(): number {
    return this.#feeds.size;
  }

  async subscribe(sessionId: string, reply: ReplyTo, afterSeq?: number): Promise<void> {
    const feed = await this.#feed(sessionId);
    const viewer: Viewer = { peer: reply.peer, cursor: -1, queue: [], catchingUp: true, holds: feed.viewers.get(reply.peer)?.holds ?? 0, swaps: new Map() };
    feed.viewers.set(reply.peer, viewer);
    try {
      if (afterSeq === undefined) await this.#sendSnapshot(feed, viewer, reply.requestId);
      else await this.#sendReplay(feed, viewer, afterSeq, reply.requestId);
    } catch (error) {
      if (feed.viewers.get(reply.peer) === viewer) this.#removeViewer(feed, reply.peer);
      throw error;
    }
    viewer.catchingUp = false;
    await this.#drain(feed, viewer);
  }

  /** The creator of a new session follows its log from seq 0 (what it writes is in the log before it is sent). */
  attachCreator(session: LiveSession, peer: Peer): Promise<void> {
    return this.subscribe(session.id, { peer }, 0);
  }

  /** Stop sending the session to the peer (idempotent); `SESSION_NOT_FOUND` when there is no such session. */
  async unsubscribe(sessionId: string, peer: Peer): Promise<void> {
    const feed = this.#feeds.get(sessionId);
    if (feed !== undefined && feed.viewers.has(peer)) {
      this.#removeViewer(feed, peer);
      return;
    }
    if ((await this.store.getSession(sessionId)) === undefined) throw notFound(sessionId);
  }

  /** Every node's followers of the session get its last event on its channel, after everything else. */
  async deleted(event: SessionDeletedEvent): Promise<void> {
    await this.publisher.spublish(sessionKeys(event.sessionId).channel, encodeBatchMessage(event.seq, [JSON.stringify(event)]));
  }

  /** The peer's connection closed. */
  detach(peer: Peer): void {
    for (const feed of [...this.#feeds.values()]) if (feed.viewers.has(peer)) this.#removeViewer(feed, peer);
  }

  count(peer: Peer): number {
    let count = 0;
    for (const feed of this.#feeds.values()) if (feed.viewers.has(peer)) count += 1;
    return count;
  }

  follows(peer: Peer, sessionId: string): boolean {
    return this.#feeds.get(sessionId)?.viewers.has(peer) ?? false;
  }

  /**
   * A request of `reply.peer` on the session is going out: its events are held until `release`, and
   * `answer` takes the request's direct answer. Both stay bound to the viewer that asked, also
   * once the feed ended: a deletion whose plain `session.deleted` arrives before the requester's
   * copy still sends what was held for it, in order, then its copy.
   */
  hold(sessionId: string, reply: ReplyTo | undefined): HeldRequest {
    if (reply === undefined) return { reply: undefined, answered: () => undefined, release: () => undefined };
    const viewer = this.#holdViewer(sessionId, reply.peer);
    const answered = (frame: Frame): void => {
      // An answer, even when it is the plain copy of an event (a request without an id).
      viewer.answer(asAnswer(frame));
      viewer.release();
    };
    // The command answers this peer, which puts the answer in order with the events held for the requester.
    const catcher: Peer = { id: reply.peer.id, ...(reply.peer.quota === undefined ? {} : { quota: reply.peer.quota }), send: answered, sendLive: answered };
    return { reply: withRequestId({ peer: catcher }, reply.requestId), answered, release: () => viewer.release() };
  }

  #holdViewer(sessionId: string, peer: Peer): ViewerHold {
    const feed = this.#feeds.get(sessionId);
    const viewer = feed?.viewers.get(peer);
    if (feed === undefined || viewer === undefined) return { answer: (frame) => peer.send(frame), release: () => undefined };
    viewer.holds += 1;
    let released = false;
    return {
      answer: (frame) => this.#answer(feed, viewer, frame),
      release: () => {
        if (released) return;
        released = true;
        viewer.holds -= 1;
        if (feed.viewers.get(peer) === viewer) void this.#drain(feed, viewer);
      },
    };
  }

  /**
   * The direct answer to a request of the viewer: sent at once when it is not an event
   * (`correction.accepted`), else in place of the plain event of its seq (the requester's copy).
   */
  #answer(feed: Feed, viewer: Viewer, frame: Frame): void {
    const message = frame.message;
    const seq = 'seq' in message ? message.seq : undefined;
    if (feed.viewers.get(viewer.peer) !== viewer || typeof seq !== 'number' || seq <= viewer.cursor) {
      viewer.peer.send(frame);
      return;
    }
    viewer.swaps.set(seq, frame);
  }

  /**
   * A batch of a followed session: published on its channel, or written by this node (handed over
   * as Redis answered the append, before its publish comes back). Whichever copy comes second finds
   * its seqs delivered and skips them.
   */
  onBatch(sessionId: string, frames: readonly string[], firstSeq: number): void {
    const feed = this.#feeds.get(sessionId);
    // The second copy of a batch (the owner's own publish): nothing to queue. The feed's lastSeq
    // only grows, so what is at or below it now would be skipped when applied anyway.
    if (feed === undefined || firstSeq + frames.length - 1 <= feed.lastSeq) return;
    feed.work = feed.work.then(() => this.#apply(feed, frames, firstSeq)).catch((error: unknown) => this.report(`following session ${sessionId} failed`, error));
  }

  /** The channel lost messages (its connection dropped): read every followed session's log after what it has. */
  refillAll(): void {
    for (const feed of this.#feeds.values()) {
      feed.work = feed.work.then(() => this.#fill(feed, Number.POSITIVE_INFINITY)).catch((error: unknown) => this.report(`refilling session ${feed.sessionId} failed`, error));
    }
  }

  /** Stop following every session, and close the channel. */
  async close(): Promise<void> {
    for (const feed of this.#feeds.values()) feed.ended = true;
    this.#feeds.clear();
    await this.channel.close();
  }

  async #feed(sessionId: string): Promise<Feed> {
    if (typeof sessionId !== 'string') throw notFound(sessionId);
    const feed = this.#feeds.get(sessionId) ?? this.#open(sessionId);
    await feed.ready;
    return feed;
  }

  /**
   * Subscribe to the channel first, then read where the log is: every later batch arrives. The
   * feed is known from the start, so a batch that arrives before the log's answer waits for it
   * (on `work`) instead of being missed.
   */
  #open(sessionId: string): Feed {
    const feed: Feed = { sessionId, viewers: new Map(), lastSeq: 0, ready: Promise.resolve(), work: Promise.resolve(), ended: false };
    this.#feeds.set(sessionId, feed);
    feed.ready = (async () => {
      await this.channel.subscribe(sessionId);
      const record = await this.store.getSession(sessionId);
      if (record === undefined) throw notFound(sessionId);
      feed.lastSeq = record.lastSeq;
    })();
    feed.ready.catch(() => this.#end(feed));
    feed.work = feed.ready.catch(() => undefined);
    return feed;
  }

  async #sendSnapshot(feed: Feed, viewer: Viewer, requestId: string | undefined): Promise<void> {
    const loaded = await loadSession(this.store, feed.sessionId);
    if (loaded === undefined) throw notFound(feed.sessionId);
    const snapshot: SessionSnapshot = { type: 'session.snapshot', ...toSnapshot(loaded.state) };
    viewer.peer.send(frameOf(withRequestId(snapshot, requestId)));
    viewer.cursor = loaded.state.seq;
  }

  async #sendReplay(feed: Feed, viewer: Viewer, afterSeq: number, requestId: string | undefined): Promise<void> {
    const stored = await this.store.getSession(feed.sessionId);
    if (stored === undefined) throw notFound(feed.sessionId);
    const lastSeq = Math.max(stored.lastSeq, feed.lastSeq);
    if (typeof afterSeq !== 'number' || !Number.isInteger(afterSeq) || afterSeq < 0 || afterSeq > lastSeq) throw badCursor(feed.sessionId, lastSeq, afterSeq);
    const firstKept = await this.store.firstKeptSeq(feed.sessionId);
    const kept = afterSeq === lastSeq || (firstKept !== undefined && afterSeq >= firstKept - 1);
    const frames = kept && afterSeq < lastSeq ? await this.store.readEventFrames(feed.sessionId, afterSeq) : [];
    // Retention folded some of them into the snapshot meanwhile: a snapshot is the answer then.
    if (!kept || (afterSeq < lastSeq && frames.length < lastSeq - afterSeq)) return this.#sendSnapshot(feed, viewer, requestId);
    const covered = afterSeq + frames.length;
    const subscribed: SessionSubscribed = { type: 'session.subscribed', sessionId: feed.sessionId, afterSeq, lastSeq: covered };
    viewer.peer.send(frameOf(withRequestId(subscribed, requestId)));
    // A replay goes out as stored, parsed by nobody.
    for (const frame of frames) viewer.peer.send(storedFrame(frame));
    viewer.cursor = covered;
  }

  /** Apply a published batch: fill a gap before it from the log, skip what the feed already has. */
  async #apply(feed: Feed, frames: readonly string[], firstSeq: number): Promise<void> {
    if (feed.ended) return;
    if (firstSeq > feed.lastSeq + 1) await this.#fill(feed, firstSeq - 1);
    for (let index = 0; index < frames.length; index++) {
      const seq = firstSeq + index;
      if (seq <= feed.lastSeq) continue;
      this.#deliver(feed, seq, storedLiveEventFrame(frames[index]!));
    }
  }

  /**
   * Read the log after the feed's last seq, up to `throughSeq`, and deliver it. When retention
   * trimmed the log past the gap (this node fell far behind), the viewers get a fresh snapshot
   * instead, as a subscriber with an old cursor does, and the log is read on from there.
   */
  async #fill(feed: Feed, throughSeq: number): Promise<void> {
    while (!feed.ended && feed.lastSeq < throughSeq) {
      const limit = Number.isFinite(throughSeq) ? throughSeq - feed.lastSeq : 1_000;
      const texts = await this.store.readEventFrames(feed.sessionId, feed.lastSeq, limit);
      if (texts.length === 0) return;
      const frames = texts.map((text) => storedLiveEventFrame(text));
      if (seqOf(frames[0]!) !== feed.lastSeq + 1) {
        await this.#resnapshot(feed);
        continue;
      }
      for (const frame of frames) this.#deliver(feed, seqOf(frame), frame);
    }
  }

  /** The events after the feed's last seq are no longer kept: every viewer behind gets the state as it is now. */
  async #resnapshot(feed: Feed): Promise<void> {
    const snapshot = await this.#currentSnapshot(feed.sessionId);
    if (snapshot === undefined) {
      this.#end(feed);
      return;
    }
    feed.lastSeq = Math.max(feed.lastSeq, snapshot.seq);
    for (const viewer of feed.viewers.values()) this.#resnapshotViewer(viewer, snapshot);
  }

  /** The session's state as the store holds it now, serialised as a `session.snapshot`; undefined once deleted. */
  async #currentSnapshot(sessionId: string): Promise<{ seq: number; frame: Frame } | undefined> {
    const loaded = await loadSession(this.store, sessionId);
    if (loaded === undefined) return undefined;
    const snapshot: SessionSnapshot = { type: 'session.snapshot', ...toSnapshot(loaded.state) };
    return { seq: loaded.state.seq, frame: frameOf(snapshot) };
  }

  /** Replace what a viewer missed with a snapshot; a requester's answers it covers still reach it. */
  #resnapshotViewer(viewer: Viewer, snapshot: { seq: number; frame: Frame }): void {
    if (snapshot.seq <= viewer.cursor) return;
    viewer.peer.send(snapshot.frame);
    viewer.cursor = snapshot.seq;
    viewer.queue = viewer.queue.filter((entry) => entry.seq > snapshot.seq);
    for (const [seq, answer] of viewer.swaps) {
      if (seq > snapshot.seq) continue;
      viewer.swaps.delete(seq);
      viewer.peer.send(answer);
    }
  }

  /** One event of the live stream, to every viewer past it: the same frame for all of them. */
  #deliver(feed: Feed, seq: number, frame: Frame): void {
    feed.lastSeq = seq;
    for (const viewer of feed.viewers.values()) {
      if (seq <= viewer.cursor) continue;
      if (viewer.catchingUp || viewer.holds > 0) viewer.queue.push({ seq, frame });
      else this.#send(viewer, seq, frame);
    }
    if (frame.message.type === 'session.deleted') this.#end(feed);
  }

  #send(viewer: Viewer, seq: number, frame: Frame): void {
    const swap = viewer.swaps.get(seq);
    if (swap !== undefined) {
      viewer.swaps.delete(seq);
      viewer.peer.send(swap);
    } else {
      viewer.peer.send(frame);
    }
    viewer.cursor = seq;
  }

  /** Send what was held for the viewer, in order; a gap between its cursor and the held events is read from the log. */
  async #drain(feed: Feed, viewer: Viewer): Promise<void> {
    if (viewer.catchingUp || viewer.holds > 0) return;
    const queued = viewer.queue;
    viewer.queue = [];
    const first = queued.find((entry) => entry.seq > viewer.cursor);
    if (first !== undefined && first.seq > viewer.cursor + 1) {
      viewer.catchingUp = true;
      try {
        const texts = await this.store.readEventFrames(feed.sessionId, viewer.cursor, first.seq - 1 - viewer.cursor);
        const missing = texts.map((text) => storedLiveEventFrame(text));
        if (missing.length === 0 || seqOf(missing[0]!) !== viewer.cursor + 1) {
          // Trimmed past the viewer's cursor: the state as it is now stands for what it missed.
          const snapshot = await this.#currentSnapshot(feed.sessionId);
          if (snapshot !== undefined) this.#resnapshotViewer(viewer, snapshot);
        } else {
          for (const frame of missing) this.#send(viewer, seqOf(frame), frame);
        }
      } finally {
        viewer.catchingUp = false;
      }
      queued.push(...viewer.queue);
      viewer.queue = [];
    }
    for (const entry of queued) if (entry.seq > viewer.cursor) this.#send(viewer, entry.seq, entry.frame);
    if (viewer.queue.length > 0) await this.#drain(feed, viewer);
  }

  #removeViewer(feed: Feed, peer: Peer): void {
    feed.viewers.delete(peer);
    if (feed.viewers.size > 0) return;
    this.#end(feed);
  }

  /** Nobody here follows the session any more (or it was deleted): leave its channel. */
  #end(feed: Feed): void {
    if (this.#feeds.get(feed.sessionId) !== feed) return;
    feed.ended = true;
    this.#feeds.delete(feed.sessionId);
    this.channel.unsubscribe(feed.sessionId).catch((error: unknown) => this.report(`leaving the channel of session ${feed.sessionId} failed`, error));
  }
}
