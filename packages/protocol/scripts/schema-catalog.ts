import { z } from 'zod';
import {
  AgentListingSchema,
  ClientMessageSchema,
  HealthSchema,
  RestErrorSchema,
  SessionPageSchema,
  SessionSnapshotBodySchema,
  CorrectionInfoSchema,
  ERROR_CODES,
  ErrorDetailSchema,
  ServerLimitsSchema,
  ServerMessageSchema,
  SessionEventSchema,
  SessionInfoSchema,
  SessionOptionsSchema,
  SessionStatusSchema,
  StepKindSchema,
  StepSchema,
  StepStatusSchema,
  ToolListingSchema,
  ToolListSchema,
  UsageSchema,
  CallUsageSchema,
  SessionUsageSchema,
  FailureReasonSchema,
  type ClientMessageType,
  type ServerMessageType,
} from '../src/index.js';

/** How a message is named in the generated documents. */
export interface MessageEntry {
  /** The `$defs` / component name. */
  id: string;
  /** One line for the documents' readers. */
  summary: string;
}

/** Every client request; a `Record` over the request types, so a new type cannot be left out. */
export const CLIENT_MESSAGES: Record<ClientMessageType, MessageEntry> = {
  'session.create': { id: 'SessionCreateRequest', summary: 'Start a session; the creator is subscribed to it.' },
  'session.subscribe': { id: 'SessionSubscribeRequest', summary: 'Watch a session: from a snapshot, or replaying every event after `afterSeq`.' },
  'session.unsubscribe': { id: 'SessionUnsubscribeRequest', summary: 'Stop watching a session; its run goes on.' },
  'step.correct': { id: 'StepCorrectRequest', summary: "Replace a step's content; later steps are invalidated and the agent regenerates." },
  'session.pause': { id: 'SessionPauseRequest', summary: 'Hold the agent after its current token.' },
  'session.resume': { id: 'SessionResumeRequest', summary: 'Continue a paused or interrupted session.' },
  'session.cancel': { id: 'SessionCancelRequest', summary: 'Stop a session for good.' },
  'session.delete': { id: 'SessionDeleteRequest', summary: 'Delete a session and its log for everyone; its watchers get `session.deleted`.' },
  'sessions.watch': { id: 'SessionsWatchRequest', summary: 'Follow the list of sessions: the newest first, then every change.' },
  'sessions.unwatch': { id: 'SessionsUnwatchRequest', summary: 'Stop following the list of sessions.' },
  'tool.approve': { id: 'ToolApproveRequest', summary: 'Run a tool call that waits for approval, as proposed.' },
  'session.message': { id: 'SessionMessageRequest', summary: 'Say something to the agent: a follow-up, or steering while it runs.' },
  'session.fork': { id: 'SessionForkRequest', summary: "A new session whose chain is a copy of the source's path up to a step." },
  'auth.refresh': { id: 'AuthRefreshRequest', summary: "A newer token for the connection's user, so the connection outlives the token it opened with." },
  'session.share': { id: 'SessionShareRequest', summary: 'Make a link that lets anyone holding it watch (viewer) or also steer (editor) one session.' },
  'session.unshare': { id: 'SessionUnshareRequest', summary: 'Revoke a share link; connections opened with it lose access at once.' },
  'tool.reject': { id: 'ToolRejectRequest', summary: 'Refuse a tool call that waits for approval; the agent goes on knowing it was refused.' },
  'subagent.cancel': { id: 'SubagentCancelRequest', summary: 'Stop one running or waiting sub-agent; its parent goes on.' },
  'input.provide': { id: 'InputProvideRequest', summary: 'Answer the question an `ask_user` call waits on; the answer becomes its observation.' },
  'approvals.forget': { id: 'ApprovalsForgetRequest', summary: 'Take back approvals given with `remember: "session"`: one tool, or all.' },
};

/** Every server frame; a `Record` over the server frame types, so a new type cannot be left out. */
export const SERVER_MESSAGES: Record<ServerMessageType, MessageEntry> = {
  hello: { id: 'Hello', summary: 'The first frame on every connection: protocol version, capabilities and limits.' },
  'session.created': { id: 'SessionCreated', summary: "The answer to `session.create`; the session's events follow." },
  'session.snapshot': { id: 'SessionSnapshot', summary: 'A whole session (every step of every branch, the chain) as of event `seq`.' },
  'session.subscribed': { id: 'SessionSubscribed', summary: 'The answer to `session.subscribe` with `afterSeq`; events `afterSeq + 1` … `lastSeq` follow.' },
  'session.unsubscribed': { id: 'SessionUnsubscribed', summary: 'The answer to `session.unsubscribe`.' },
  'correction.accepted': { id: 'CorrectionAccepted', summary: 'The answer to `step.correct`; `step.corrected` and `steps.invalidated` follow.' },
  error: { id: 'ErrorFrame', summary: 'A request could not be carried out. Never ends a session.' },
  'sessions.watching': { id: 'SessionsWatching', summary: 'The answer to `sessions.watch`: the newest sessions first; changes follow.' },
  'sessions.unwatched': { id: 'SessionsUnwatched', summary: 'The answer to `sessions.unwatch`.' },
  'sessions.changed': { id: 'SessionsChanged', summary: 'To list watchers: a session was created or its summary (status, revision) changed.' },
  'sessions.removed': { id: 'SessionsRemoved', summary: 'To list watchers: a session was deleted.' },
  'session.status': { id: 'SessionStatusEvent', summary: "The session's status changed (it answers pause/resume/cancel too)." },
  'step.started': { id: 'StepStartedEvent', summary: 'A new step begins streaming on the head of the chain.' },
  'step.delta': { id: 'StepDeltaEvent', summary: 'Append-only text of a streaming step.' },
  'step.completed': { id: 'StepCompletedEvent', summary: "A step's final content, equal to its deltas joined." },
  'step.corrected': { id: 'StepCorrectedEvent', summary: "A user's correction replaced a step on the chain." },
  'steps.invalidated': { id: 'StepsInvalidatedEvent', summary: 'The replaced step and every later step of the old chain are invalidated (kept).' },
  'message.accepted': { id: 'MessageAccepted', summary: 'The answer to `session.message`: the id of its `user_message` step.' },
  'auth.refreshed': { id: 'AuthRefreshed', summary: 'The answer to `auth.refresh`: the connection now lasts until `expiresAt`.' },
  'message.queued': { id: 'MessageQueuedEvent', summary: 'A message sent while the agent runs waits for a step boundary or the end of the turn.' },
  'steps.copied': { id: 'StepsCopiedEvent', summary: "A forked session's chain, copied from the source at once." },
  'approval.requested': { id: 'ApprovalRequestedEvent', summary: 'A completed tool call waits for the user: approve, edit (correct it) or reject.' },
  'approval.resolved': { id: 'ApprovalResolvedEvent', summary: 'The decision on a pending tool call (it answers `tool.approve` / `tool.reject` too).' },
  'session.shared': { id: 'SessionShared', summary: 'The answer to `session.share`: the link and its token, sent this once.' },
  'session.unshared': { id: 'SessionUnshared', summary: 'The answer to `session.unshare`.' },
  'share.created': { id: 'ShareCreatedEvent', summary: 'A share link to the session was made (its record, never its token).' },
  'share.revoked': { id: 'ShareRevokedEvent', summary: 'A share link to the session was revoked.' },
  'usage.recorded': { id: 'UsageRecordedEvent', summary: "One model call's tokens, cost and timing, after the steps it produced; the session's totals add it up." },
  'subagent.started': { id: 'SubagentStartedEvent', summary: "A delegate call's sub-agent begins; its steps carry the call's id as their `scope`." },
  'subagent.status': { id: 'SubagentStatusEvent', summary: "A sub-agent's status changed (it answers `subagent.cancel` too)." },
  'input.requested': { id: 'InputRequestedEvent', summary: 'An `ask_user` call waits for the user\'s answer.' },
  'input.resolved': { id: 'InputResolvedEvent', summary: 'A question was answered or timed out (it answers `input.provide` too).' },
  'approvals.forgotten': { id: 'ApprovalsForgottenEvent', summary: 'Remembered approvals were taken back (it answers `approvals.forget` too).' },
  'breakpoint.hit': { id: 'BreakpointHitEvent', summary: 'A breakpoint stopped the run at a step; `session.status` `paused` follows.' },
  'session.deleted': { id: 'SessionDeletedEvent', summary: "A session's last event: it was deleted with its log (it answers `session.delete` too)." },
};

/** Every known error code as an enum, for documentation: clients must tolerate codes they do not know. */
export const ErrorCodeSchema = z.enum(Object.values(ERROR_CODES) as [string, ...string[]]);

/** The building blocks shared by several messages, each its own definition. */
const SHARED_SCHEMAS: Array<{ id: string; schema: z.ZodType; description: string }> = [
  { id: 'ClientMessage', schema: ClientMessageSchema, description: 'Any frame a client may send (strict: unknown fields are refused).' },
  { id: 'ServerMessage', schema: ServerMessageSchema, description: 'Any frame the server may send (tolerant: clients ignore unknown fields and types).' },
  { id: 'SessionEvent', schema: SessionEventSchema, description: "An event of a session's log: each carries `sessionId`, `seq` and `at`." },
  { id: 'Step', schema: StepSchema, description: "A node of the session's step tree." },
  { id: 'StepKind', schema: StepKindSchema, description: 'What a step is.' },
  { id: 'StepStatus', schema: StepStatusSchema, description: "Where a step is in its life; invalidated steps are kept." },
  { id: 'CorrectionInfo', schema: CorrectionInfoSchema, description: "The record of a user's correction, on the step that replaced the corrected one." },
  { id: 'SessionInfo', schema: SessionInfoSchema, description: 'The summary of a session.' },
  { id: 'SessionStatus', schema: SessionStatusSchema, description: "A session's lifecycle status." },
  { id: 'SessionOptions', schema: SessionOptionsSchema, description: 'Per-session options of `session.create`.' },
  { id: 'Usage', schema: UsageSchema, description: 'Tokens a model call (or a session) used, and their cost when the server knows the price.' },
  { id: 'CallUsage', schema: CallUsageSchema, description: "One model call's usage with its model and timing, as the last step it produced carries it." },
  { id: 'SessionUsage', schema: SessionUsageSchema, description: "A session's running totals: every model call recorded, invalidated branches included." },
  { id: 'FailureReason', schema: FailureReasonSchema, description: 'Why a session failed, machine-readable; clients tolerate reasons they do not know.' },
  { id: 'ServerLimits', schema: ServerLimitsSchema, description: 'Limits the server enforces on a connection.' },
  { id: 'ErrorDetail', schema: ErrorDetailSchema, description: 'One schema issue of a `BAD_FRAME` error: where, and what is wrong.' },
  { id: 'ErrorCode', schema: ErrorCodeSchema, description: 'The error codes this version knows; `error.code` may carry newer ones.' },
  { id: 'AgentListing', schema: AgentListingSchema, description: 'REST: one agent of `GET /api/agents`; `reason` says why an unavailable one is.' },
  { id: 'ToolListing', schema: ToolListingSchema, description: 'REST: one tool of `GET /api/tools`: its source (built in or an MCP server), input JSON Schema and whether it only reads.' },
  { id: 'ToolList', schema: ToolListSchema, description: 'REST: `GET /api/tools`, every tool the server\'s agents may call.' },
  { id: 'SessionPage', schema: SessionPageSchema, description: 'REST: `GET /api/sessions`, newest first; `nextCursor` is the `before` of the next page.' },
  { id: 'SessionSnapshotBody', schema: SessionSnapshotBodySchema, description: 'REST: `GET /api/sessions/:id`, a `session.snapshot` without `type` and `requestId`.' },
  { id: 'Health', schema: HealthSchema, description: 'REST: `GET /api/health`, always public.' },
  { id: 'RestError', schema: RestErrorSchema, description: 'REST: the body of every failed call, with its HTTP status.' },
];

type SchemaMeta = { id: string; description: string };

/** A registry naming every message and shared schema, so each becomes one definition referenced by the others. */
export function buildSchemaRegistry(): z.core.$ZodRegistry<SchemaMeta> {
  const registry = z.registry<SchemaMeta>();
  for (const { id, schema, description } of SHARED_SCHEMAS) registry.add(schema, { id, description });
  for (const schema of ClientMessageSchema.options) {
    const entry = CLIENT_MESSAGES[schema.shape.type.value];
    registry.add(schema, { id: entry.id, description: entry.summary });
  }
  for (const schema of ServerMessageSchema.options) {
    const entry = SERVER_MESSAGES[schema.shape.type.value];
    registry.add(schema, { id: entry.id, description: entry.summary });
  }
  return registry;
}
