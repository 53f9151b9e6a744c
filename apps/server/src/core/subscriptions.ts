import { toSnapshot, type SessionSnapshot, type SessionSubscribed } from '@interthought/protocol';
import type { EventStore } from './event-store.js';
import type { LiveSession } from './live-session.js';
import { SessionError } from './session-error.js';
import type { Peer, ReplyTo } from './session-service.js';

function checkCursor(session: LiveSession, afterSeq: number): void {
  const lastSeq = session.state.seq;
  if (typeof afterSeq === 'number' && Number.isInteger(afterSeq) && afterSeq >= 0 && afterSeq <= lastSeq) return;
  throw new SessionError(
    'BAD_CURSOR',
    `afterSeq must be an integer from 0 to ${lastSeq} (the last seq of session ${session.id}); got ${String(afterSeq)}. Omit it to get a snapshot.`,
  );
}

/** Stored events as JSON strings: as stored when the store keeps them so, else serialised here. */
function readFrames(store: EventStore, sessionId: string, afterSeq: number): string[] {
  if (store.readEventFrames) return store.readEventFrames(sessionId, afterSeq);
  return store.readEvents(sessionId, afterSeq).map((event) => JSON.stringify(event));
}

function sendSnapshot(session: LiveSession, reply: ReplyTo): void {
  const frame: SessionSnapshot = { type: 'session.snapshot', ...toSnapshot(session.state) };
  if (reply.requestId !== undefined) frame.requestId = reply.requestId;
  reply.peer.send(JSON.stringify(frame));
}

/**
 * Send what a subscriber needs before the live stream, and return the last seq it covers:
 * a snapshot without `afterSeq`; with it, `session.subscribed` and every stored event after it,
 * or a snapshot when the store no longer keeps them all. The outbox must be flushed first, so
 * the store holds every event of the state.
 */
export function serveSubscription(session: LiveSession, store: EventStore, reply: ReplyTo, afterSeq?: number): number {
  const lastSeq = session.state.seq;
  if (afterSeq === undefined) {
    sendSnapshot(session, reply);
    return lastSeq;
  }
  checkCursor(session, afterSeq);
  const firstKept = store.firstKeptSeq(session.id);
  const kept = afterSeq === lastSeq || (firstKept !== undefined && afterSeq >= firstKept - 1);
  const events = kept && afterSeq < lastSeq ? readFrames(store, session.id, afterSeq) : [];
  // A store that returns fewer events than the state holds cannot be replayed faithfully.
  if (!kept || events.length !== lastSeq - afterSeq) {
    sendSnapshot(session, reply);
    return lastSeq;
  }
  const subscribed: SessionSubscribed = { type: 'session.subscribed', sessionId: session.id, afterSeq, lastSeq };
  if (reply.requestId !== undefined) subscribed.requestId = reply.requestId;
  reply.peer.send(JSON.stringify(subscribed));
  for (const frame of events) reply.peer.send(frame);
  return lastSeq;
}

/** Which sessions each peer watches, so a closed connection can be detached from all of them. */
export class PeerIndex {
  readonly #sessionsByPeer = new Map<Peer, Set<LiveSession>>();

  add(session: LiveSession, peer: Peer, servedSeq: number): void {
    session.subscribers.set(peer, servedSeq);
    let sessions = this.#sessionsByPeer.get(peer);
    if (!sessions) {
      sessions = new Set();
      this.#sessionsByPeer.set(peer, sessions);
    }
    sessions.add(session);
  }

  remove(session: LiveSession, peer: Peer): void {
    session.subscribers.delete(peer);
    const sessions = this.#sessionsByPeer.get(peer);
    if (!sessions) return;
    sessions.delete(session);
    if (sessions.size === 0) this.#sessionsByPeer.delete(peer);
  }

  /** Remove every subscriber of the session (it was deleted); returns them. */
  removeSession(session: LiveSession): Peer[] {
    const peers = [...session.subscribers.keys()];
    for (const peer of peers) this.remove(session, peer);
    return peers;
  }

  /** Remove the peer everywhere; returns the sessions it left. */
  detach(peer: Peer): LiveSession[] {
    const sessions = [...(this.#sessionsByPeer.get(peer) ?? [])];
    this.#sessionsByPeer.delete(peer);
    for (const session of sessions) session.subscribers.delete(peer);
    return sessions;
  }

  /** How many sessions the peer watches (for per-connection caps in the transport). */
  countFor(peer: Peer): number {
    return this.#sessionsByPeer.get(peer)?.size ?? 0;
  }
}
