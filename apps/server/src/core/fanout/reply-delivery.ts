import type { SessionEvent } from '@interthought/protocol';
import type { Peer, ReplyTo } from './peer.js';

/**
 * Send one event to a session's subscribers and to the requester of the change it records. Every
 * subscriber gets the same string, serialised once; the requester gets its own copy carrying its
 * `requestId` (in place of the plain one when it also subscribes, and even when it does not).
 * A subscriber whose snapshot or replay already covered the event (`servedSeq`) is skipped.
 * `Peer.send` must not throw; one that does is reported and costs the others nothing.
 */
export function deliverWithReply(
  event: SessionEvent,
  frame: string | undefined,
  subscribers: ReadonlyMap<Peer, number>,
  reply: ReplyTo | undefined,
  reportError: (context: string, error: unknown) => void,
): void {
  let plain: string;
  let answer: string;
  try {
    plain = frame ?? JSON.stringify(event);
    answer = reply?.requestId === undefined ? plain : JSON.stringify({ ...event, requestId: reply.requestId });
  } catch (error) {
    reportError(`event ${event.sessionId}#${event.seq} could not be serialised`, error);
    return;
  }
  const requester = reply?.peer;
  // The event object rides along only with its plain serialisation (see `Peer.send`).
  const deliver = (peer: Peer, text: string): void => {
    try {
      if (text === plain) peer.send(text, event);
      else peer.send(text);
    } catch (error) {
      reportError(`peer ${peer.id} threw from send`, error);
    }
  };
  for (const [peer, servedSeq] of subscribers) {
    if (event.seq <= servedSeq) continue;
    deliver(peer, peer === requester ? answer : plain);
  }
  if (requester !== undefined && !subscribers.has(requester)) deliver(requester, answer);
}
