import type { SessionDeletedEvent } from '@interthought/protocol';
import type { Peer, ReplyTo } from './session-service.js';

/** The `session.deleted` event of a session whose last stored event is `lastSeq`. */
export function deletedEvent(sessionId: string, lastSeq: number, at: string): SessionDeletedEvent {
  return { type: 'session.deleted', sessionId, seq: lastSeq + 1, at };
}

/**
 * Send a session's last event to everyone who must hear of its deletion: each watcher, and the
 * requester, whose copy carries its `requestId` (in place of the plain one if it also watches).
 * Serialised once per variant, like the outbox does; it is never stored, since the log is gone.
 * Watchers are then told their subscription ended (`Peer.forget`), so per-connection counts drop.
 */
export function announceDeletion(
  event: SessionDeletedEvent,
  watchers: readonly Peer[],
  reply: ReplyTo | undefined,
  reportError: (context: string, error: unknown) => void,
): void {
  const frame = JSON.stringify(event);
  const requester = reply?.peer;
  const answer = reply?.requestId === undefined ? frame : JSON.stringify({ ...event, requestId: reply.requestId });
  const deliver = (peer: Peer, text: string): void => {
    try {
      // The event rides along only with its plain serialisation (see `Peer.send`).
      if (text === frame) peer.send(text, event);
      else peer.send(text);
    } catch (error) {
      reportError(`peer ${peer.id} threw from send`, error);
    }
  };
  for (const peer of watchers) deliver(peer, peer === requester ? answer : frame);
  if (requester !== undefined && !watchers.includes(requester)) deliver(requester, answer);
  for (const peer of watchers) {
    try {
      peer.forget?.(event.sessionId);
    } catch (error) {
      reportError(`peer ${peer.id} threw from forget`, error);
    }
  }
}
