import { z } from 'zod';
import { AuthRefreshRequestSchema, AuthRefreshedSchema } from './auth.js';
import { ApprovalRequestedEventSchema, ApprovalResolvedEventSchema, ToolApproveRequestSchema, ToolRejectRequestSchema } from './approval.js';
import { CorrectionAcceptedSchema, StepCorrectRequestSchema } from './correction.js';
import { MessageAcceptedSchema, MessageQueuedEventSchema, SessionMessageRequestSchema } from './conversation.js';
import { SessionForkRequestSchema } from './fork.js';
import { ErrorFrameSchema } from './error.js';
import {
  SessionShareRequestSchema,
  SessionSharedSchema,
  SessionUnshareRequestSchema,
  SessionUnsharedSchema,
  ShareCreatedEventSchema,
  ShareRevokedEventSchema,
} from './sharing.js';
import { HelloSchema } from './hello.js';
import {
  SessionCancelRequestSchema,
  SessionCreateRequestSchema,
  SessionCreatedSchema,
  SessionDeleteRequestSchema,
  SessionDeletedEventSchema,
  SessionPauseRequestSchema,
  SessionResumeRequestSchema,
  SessionSnapshotSchema,
  SessionStatusEventSchema,
  SessionSubscribeRequestSchema,
  SessionSubscribedSchema,
  SessionUnsubscribeRequestSchema,
  SessionUnsubscribedSchema,
} from './session.js';
import {
  SessionsChangedSchema,
  SessionsRemovedSchema,
  SessionsUnwatchRequestSchema,
  SessionsUnwatchedSchema,
  SessionsWatchRequestSchema,
  SessionsWatchingSchema,
} from './session-list.js';
import {
  StepCompletedEventSchema,
  StepCorrectedEventSchema,
  StepDeltaEventSchema,
  StepStartedEventSchema,
  StepsCopiedEventSchema,
  StepsInvalidatedEventSchema,
} from './step.js';
import { SubagentCancelRequestSchema, SubagentStartedEventSchema, SubagentStatusEventSchema } from './subagent.js';
import { InputProvideRequestSchema, InputRequestedEventSchema, InputResolvedEventSchema } from './question.js';
import { ApprovalsForgetRequestSchema, ApprovalsForgottenEventSchema } from './approval-rules.js';
import { BreakpointHitEventSchema } from './breakpoint.js';
import { UsageRecordedEventSchema } from './usage.js';

/** Every frame a client may send (strict: unknown fields are refused). */
export const ClientMessageSchema = z.discriminatedUnion('type', [
  SessionCreateRequestSchema,
  SessionSubscribeRequestSchema,
  SessionUnsubscribeRequestSchema,
  StepCorrectRequestSchema,
  SessionPauseRequestSchema,
  SessionResumeRequestSchema,
  SessionCancelRequestSchema,
  SessionDeleteRequestSchema,
  SessionsWatchRequestSchema,
  SessionsUnwatchRequestSchema,
  ToolApproveRequestSchema,
  ToolRejectRequestSchema,
  SessionMessageRequestSchema,
  SessionForkRequestSchema,
  AuthRefreshRequestSchema,
  SessionShareRequestSchema,
  SessionUnshareRequestSchema,
  SubagentCancelRequestSchema,
  InputProvideRequestSchema,
  ApprovalsForgetRequestSchema,
]);

/** The `type` of every client request. */
export const CLIENT_MESSAGE_TYPES = ClientMessageSchema.options.map((o) => o.shape.type.value);

/**
 * The events of a session: each carries `sessionId`, `seq` and `at`. All are stored in its log
 * except `session.deleted`, its last event, which goes with the log.
 */
export const SessionEventSchema = z.discriminatedUnion('type', [
  SessionStatusEventSchema,
  StepStartedEventSchema,
  StepDeltaEventSchema,
  StepCompletedEventSchema,
  StepCorrectedEventSchema,
  StepsInvalidatedEventSchema,
  ApprovalRequestedEventSchema,
  ApprovalResolvedEventSchema,
  MessageQueuedEventSchema,
  StepsCopiedEventSchema,
  ShareCreatedEventSchema,
  ShareRevokedEventSchema,
  UsageRecordedEventSchema,
  SubagentStartedEventSchema,
  SubagentStatusEventSchema,
  InputRequestedEventSchema,
  InputResolvedEventSchema,
  ApprovalsForgottenEventSchema,
  BreakpointHitEventSchema,
  SessionDeletedEventSchema,
]);

/** The `type` of every session event. */
export const SESSION_EVENT_TYPES = SessionEventSchema.options.map((o) => o.shape.type.value);

/** Every frame the server may send (tolerant: clients ignore unknown fields). */
export const ServerMessageSchema = z.discriminatedUnion('type', [
  HelloSchema,
  SessionCreatedSchema,
  SessionSnapshotSchema,
  SessionSubscribedSchema,
  SessionUnsubscribedSchema,
  CorrectionAcceptedSchema,
  ErrorFrameSchema,
  SessionsWatchingSchema,
  SessionsUnwatchedSchema,
  SessionsChangedSchema,
  SessionsRemovedSchema,
  MessageAcceptedSchema,
  AuthRefreshedSchema,
  SessionSharedSchema,
  SessionUnsharedSchema,
  ...SessionEventSchema.options,
]);

/** The `type` of every server frame this version knows; clients ignore others. */
export const SERVER_MESSAGE_TYPES = ServerMessageSchema.options.map((o) => o.shape.type.value);

export type ClientMessage = z.infer<typeof ClientMessageSchema>;
export type ClientMessageType = ClientMessage['type'];
export type SessionEvent = z.infer<typeof SessionEventSchema>;
export type SessionEventType = SessionEvent['type'];
/**
 * The events a session's log holds: every session event but `session.deleted`, which is sent
 * once to the watchers of a session whose log is gone, and never stored.
 */
export type LoggedSessionEvent = Exclude<SessionEvent, { type: 'session.deleted' }>;
export type ServerMessage = z.infer<typeof ServerMessageSchema>;
export type ServerMessageType = ServerMessage['type'];
/** A client request without its `id` (the client assigns one). */
export type ClientRequest = ClientMessage extends infer M ? (M extends ClientMessage ? Omit<M, 'id'> : never) : never;
