import type { ServerMessage } from '@interthought/protocol';
import { frameOf } from './frame.js';
import type { ReplyTo } from './peer.js';

/** A direct answer without its request id: `answer` attaches it. */
export type Answer = ServerMessage extends infer M ? (M extends { requestId?: string } ? Omit<M, 'requestId'> : never) : never;

/**
 * `message` carrying `requestId` when the request gave one: the one place that attaches it, for
 * every direct answer (and a requester's copy of an event).
 */
export function withRequestId<M extends object>(message: M, requestId: string | undefined): M {
  return requestId === undefined ? message : { ...message, requestId };
}

/** Send the requester its direct answer, carrying its `requestId` when it gave one. */
export function answer(reply: ReplyTo, message: Answer): void {
  reply.peer.send(frameOf(withRequestId(message, reply.requestId) as ServerMessage));
}

/** The same, for a caller that may have no requester (a REST call, a timer). */
export function answerIfAsked(reply: ReplyTo | undefined, message: Answer): void {
  if (reply !== undefined) answer(reply, message);
}
