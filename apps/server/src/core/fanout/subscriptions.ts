import { toSnapshot, type SessionSnapshot, type SessionSubscribed } from '@interthought/protocol';
import type { EventStore } from '../persistence/event-store.js';
import type { LiveSession } from '../sessions/live-session.js';
import { withRequestId } from './answer.js';
import { frameNow, frameOf, storedFrame, type Frame } from './frame.js';
import type { Peer, ReplyTo } from './peer.js';
import { SessionError, badCursor, notFound } from '../session-error.js';

const NO_SUBSCRIBERS: ReadonlyMap<Peer, number> = new Map();

function checkCursor(session: LiveSession, afterSeq: number): void {
  const lastSeq = session.state.seq;
  if (typeof afterSeq === 'number' && Number.isInteger(afterSeq) && afterSeq >= 0 && afterSeq <= lastSeq) return;
  throw badCursor(session.id, lastSeq, afterSeq);
}

/** What a subscriber gets before the live stream, the seq it covers, and who gets it. */
interface Opening {
  reply: ReplyTo;
  /** The frames to send, in order (a snapshot, or `session.subscribed` and the replayed events). */
  frames: Frame[];
  /** The last seq they cover: live events after it follow. */
  coveredSeq: number;
  /** Answers the subscribe request: served, or refused (the session was deleted meanwhile). */
  settle: (refusal?: SessionError) => void;
}

function snapshotOpening(session: LiveSession, reply: ReplyTo): Omit<Opening, 'settle'> {
  // Serialised now: the state moves on while the opening waits for its events to be written.
  const snapshot: SessionSnapshot = { type: 'session.snapshot', ...toSnapshot(session.state) };
  return { reply, frames: [frameNow(withRequestId(snapshot, reply.requestId))], coveredSeq: session.state.seq };
}

function replayOpening(session: LiveSession, reply: ReplyTo, afterSeq: number, events: readonly string[]): Omit<Opening, 'settle'> {
  const coveredSeq = afterSeq + events.length;
  const subscribed: SessionSubscribed = { type: 'session.subscribed', sessionId: session.id, afterSeq, lastSeq: coveredSeq };
  // The replayed events go out as the store holds them, parsed by nobody.
  return { reply, frames: [frameOf(withRequestId(subscribed, reply.requestId)), ...events.map((text) => storedFrame(text))], coveredSeq };
}

/**
 * Every subscription of every session, and the openings waiting to be served. A subscriber gets a
 * snapshot, or `session.subscribed` and a replay of the stored events after its cursor, then the
 * live stream, with nothing missed or doubled: an opening is sent, and its peer attached, in the
 * same synchronous step in which every event it covers is written, and before any later event
 * is sent. Events are sent only once written, so an opening that covers events still in flight
 * waits for the outbox to report their write (`written`).
 */
export class Subscriptions {
  readonly #sessionsByPeer = new Map<Peer, Set<LiveSession>>();
  /** Each session's subscribers with the last seq each one's snapshot or replay covered: owned here, read by the session and the outbox. */
  readonly #subscribers = new Map<LiveSession, Map<Peer, number>>();
  /** Openings whose covered events are not all written yet, by session. */
  readonly #waiting = new Map<LiveSession, Opening[]>();

  constructor(private readonly store: EventStore) {}

  /**
   * Serve `reply.peer` an opening and attach it to the session's live events. Without `afterSeq`:
   * a snapshot. With it: the stored events after it (read from the store while the session goes
   * on), or a snapshot when retention no longer keeps them all. `BAD_CURSOR` for a bad cursor.
   */
  async open(session: LiveSession, reply: ReplyTo, afterSeq?: number): Promise<void> {
    if (afterSeq === undefined) return this.#serve(session, snapshotOpening(session, reply));
    checkCursor(session, afterSeq);
    const events: string[] = [];
    let cursor = afterSeq;
    // What is written may grow while the store answers: read until the replay meets it.
    while (cursor < session.writtenSeq) {
      const firstKept = await this.store.firstKeptSeq(session.id);
      if (firstKept === undefined || cursor < firstKept - 1) return this.#serveSnapshot(session, reply);
      const more = await this.store.readEventFrames(session.id, cursor, session.writtenSeq - cursor);
      if (session.deleted) throw notFound(session.id);
      // A store that returns fewer events than it holds cannot be replayed faithfully.
      if (more.length === 0) return this.#serveSnapshot(session, reply);
      for (const frame of more) events.push(frame);
      cursor += more.length;
    }
    return this.#serve(session, replayOpening(session, reply, afterSeq, events));
  }

  /** A session with no event yet, to its creator: `session.subscribed` at seq 0, attached before anything is written. */
  openFromStart(session: LiveSession, peer: Peer): void {
    this.#send(session, replayOpening(session, { peer }, 0, []));
  }

  #serveSnapshot(session: LiveSession, reply: ReplyTo): Promise<void> {
    if (session.deleted) throw notFound(session.id);
    return this.#serve(session, snapshotOpening(session, reply));
  }

  /** Send the opening now if everything it covers is written, else when the outbox reports it. */
  #serve(session: LiveSession, opening: Omit<Opening, 'settle'>): Promise<void> {
    if (opening.coveredSeq <= session.writtenSeq) {
      this.#send(session, opening);
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      let waiting = this.#waiting.get(session);
      if (waiting === undefined) this.#waiting.set(session, (waiting = []));
      waiting.push({ ...opening, settle: (refusal) => (refusal === undefined ? resolve() : reject(refusal)) });
    });
  }

  #send(session: LiveSession, opening: Omit<Opening, 'settle'>): void {
    for (const frame of opening.frames) opening.reply.peer.send(frame);
    this.#attach(session, opening.reply.peer, opening.coveredSeq);
  }

  /** The outbox wrote events of `session`: serve the openings they complete, before those events are sent. */
  written(session: LiveSession): void {
    const waiting = this.#waiting.get(session);
    if (waiting === undefined) return;
    const still = waiting.filter((opening) => opening.coveredSeq > session.writtenSeq);
    if (still.length > 0) this.#waiting.set(session, still);
    else this.#waiting.delete(session);
    for (const opening of waiting) {
      if (opening.coveredSeq > session.writtenSeq) continue;
      this.#send(session, opening);
      opening.settle();
    }
  }

  /**
   * A write failed: the openings waiting for it are refused (the client subscribes again
   * shortly) rather than held for as long as the store is down.
   */
  refuseWaiting(): void {
    const waiting = [...this.#waiting.values()].flat();
    this.#waiting.clear();
    const refusal = new SessionError('INTERNAL', "The session's latest events could not be written yet; subscribe again shortly.");
    for (const opening of waiting) opening.settle(refusal);
  }

  /** Openings dropped: the peer's (it left), or all of a deleted session's, whose requests are refused. */
  #dropWaiting(session: LiveSession, peer?: Peer): void {
    const waiting = this.#waiting.get(session);
    if (waiting === undefined) return;
    const still = waiting.filter((opening) => peer !== undefined && opening.reply.peer !== peer);
    if (still.length > 0) this.#waiting.set(session, still);
    else this.#waiting.delete(session);
    for (const opening of waiting) if (!still.includes(opening)) opening.settle(peer === undefined ? notFound(session.id) : undefined);
  }

  /** The session's subscribers (a read-only view: `LiveSession.subscribers`). */
  subscribersOf(session: LiveSession): ReadonlyMap<Peer, number> {
    return this.#subscribers.get(session) ?? NO_SUBSCRIBERS;
  }

  #attach(session: LiveSession, peer: Peer, servedSeq: number): void {
    let subscribers = this.#subscribers.get(session);
    if (subscribers === undefined) this.#subscribers.set(session, (subscribers = new Map()));
    subscribers.set(peer, servedSeq);
    let sessions = this.#sessionsByPeer.get(peer);
    if (!sessions) {
      sessions = new Set();
      this.#sessionsByPeer.set(peer, sessions);
    }
    sessions.add(session);
  }

  remove(session: LiveSession, peer: Peer): void {
    this.#dropWaiting(session, peer);
    this.#unsubscribe(session, peer);
    const sessions = this.#sessionsByPeer.get(peer);
    if (!sessions) return;
    sessions.delete(session);
    if (sessions.size === 0) this.#sessionsByPeer.delete(peer);
  }

  /** Remove every subscriber of the session (it was deleted); returns them with the seq each was served. */
  removeSession(session: LiveSession): Map<Peer, number> {
    this.#dropWaiting(session);
    const peers = new Map(this.subscribersOf(session));
    for (const peer of peers.keys()) this.remove(session, peer);
    return peers;
  }

  /** Remove the peer everywhere; returns the sessions it left. */
  detach(peer: Peer): LiveSession[] {
    for (const session of [...this.#waiting.keys()]) this.#dropWaiting(session, peer);
    const sessions = [...(this.#sessionsByPeer.get(peer) ?? [])];
    this.#sessionsByPeer.delete(peer);
    for (const session of sessions) this.#unsubscribe(session, peer);
    return sessions;
  }

  #unsubscribe(session: LiveSession, peer: Peer): void {
    const subscribers = this.#subscribers.get(session);
    if (subscribers === undefined) return;
    subscribers.delete(peer);
    if (subscribers.size === 0) this.#subscribers.delete(session);
  }

  /** How many sessions the peer watches (for per-connection caps in the transport). */
  countFor(peer: Peer): number {
    return this.#sessionsByPeer.get(peer)?.size ?? 0;
  }

  /** Whether the peer watches the session (renewing a subscription needs no room under a cap). */
  watches(peer: Peer, sessionId: string): boolean {
    for (const session of this.#sessionsByPeer.get(peer) ?? []) if (session.id === sessionId) return true;
    return false;
  }
}
