import type { SessionDeletedEvent } from '@interthought/protocol';
import type { Peer, ReplyTo } from './peer.js';
import { deliverWithReply } from './reply-delivery.js';

/** The `session.deleted` event of a session whose last stored event is `lastSeq`. */
export function deletedEvent(sessionId: string, lastSeq: number, at: string): SessionDeletedEvent {
  return { type: 'session.deleted', sessionId, seq: lastSeq + 1, at };
}

/**
 * Send a session's last event to everyone who must hear of its deletion: each watcher, and the
 * requester with its `requestId`, exactly as the outbox sends a logged event. It is never stored,
 * since the log is gone; the core has already ended the watchers' subscriptions.
 */
export function announceDeletion(
  event: SessionDeletedEvent,
  watchers: ReadonlyMap<Peer, number>,
  reply: ReplyTo | undefined,
  reportError: (context: string, error: unknown) => void,
): void {
  deliverWithReply(event, undefined, watchers, reply, reportError);
}
