import type { ClientMessageType, ClientRequest, ServerMessage, ServerMessageType } from '../messages.js';

/** The frame types that answer each request (besides `error`), as the request table of PROTOCOL.md §9 "Client requests" lists them. */
export const ANSWER_TYPES = {
  'session.create': ['session.created'],
  'session.subscribe': ['session.snapshot', 'session.subscribed'],
  'session.unsubscribe': ['session.unsubscribed'],
  'step.correct': ['correction.accepted'],
  'session.pause': ['session.status'],
  'session.resume': ['session.status'],
  'session.cancel': ['session.status'],
  'session.delete': ['session.deleted'],
  'sessions.watch': ['sessions.watching'],
  'sessions.unwatch': ['sessions.unwatched'],
  'tool.approve': ['approval.resolved'],
  'tool.reject': ['approval.resolved'],
  'session.message': ['message.accepted'],
  'session.fork': ['session.created'],
  'auth.refresh': ['auth.refreshed'],
  'session.share': ['session.shared'],
  'session.unshare': ['session.unshared'],
  'subagent.cancel': ['subagent.status'],
  'input.provide': ['input.resolved'],
  'approvals.forget': ['approvals.forgotten'],
} as const satisfies Record<ClientMessageType, readonly ServerMessageType[]>;

/** The request of a given type, without its `id` (the client assigns one). */
export type RequestOf<T extends ClientMessageType> = Extract<ClientRequest, { type: T }>;

/** The direct answer to a request of type `T`. */
export type AnswerTo<T extends ClientMessageType> = Extract<ServerMessage, { type: (typeof ANSWER_TYPES)[T][number] }>;
