import type { ServerMessage } from '@interthought/protocol';
import type { ReplyTo } from './peer.js';

/** A direct answer without its request id: `answer` attaches it. */
export type Answer = ServerMessage extends infer M ? (M extends { requestId?: string } ? Omit<M, 'requestId'> : never) : never;

/** Send the requester its direct answer, carrying its `requestId` when it gave one: the one place that attaches it. */
export function answer(reply: ReplyTo, message: Answer): void {
  const frame = reply.requestId === undefined ? message : { ...message, requestId: reply.requestId };
  reply.peer.send(JSON.stringify(frame));
}

/** The same, for a caller that may have no requester (a REST call, a timer). */
export function answerIfAsked(reply: ReplyTo | undefined, message: Answer): void {
  if (reply !== undefined) answer(reply, message);
}
