import type { SessionEvent } from '@interthought/protocol';
import { withRequestId } from './answer.js';
import { frameOf, liveEventFrame, type Frame } from './frame.js';
import type { Peer, ReplyTo } from './peer.js';

/**
 * Send one event to a session's subscribers and to the requester of the change it records. Every
 * subscriber gets the same frame, serialised once; the requester gets its own copy carrying its
 * `requestId` (in place of the plain one when it also subscribes, and even when it does not).
 * A subscriber whose snapshot or replay already covered the event (`servedSeq`) is skipped.
 * `Peer.send` must not throw; one that does is reported and costs the others nothing.
 */
export function deliverWithReply(
  event: SessionEvent,
  text: string | undefined,
  subscribers: ReadonlyMap<Peer, number>,
  reply: ReplyTo | undefined,
  reportError: (context: string, error: unknown) => void,
): void {
  // Only the plain copy is live (see `Peer.send`): the requester's copy with `requestId` is an answer.
  const plain = liveEventFrame(event, text);
  const answer: Frame = reply?.requestId === undefined ? plain : frameOf(withRequestId(event, reply.requestId));
  try {
    // Serialised here, once each, so a frame that cannot be is reported as such, not as each peer's failure.
    void plain.text;
    void answer.text;
  } catch (error) {
    reportError(`event ${event.sessionId}#${event.seq} could not be serialised`, error);
    return;
  }
  const requester = reply?.peer;
  const deliver = (peer: Peer, frame: Frame): void => {
    try {
      peer.send(frame);
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
