import { SubagentInfoSchema } from './subagent.js';
import { z } from 'zod';
import { FIELD_LIMITS } from './limits.js';
import { IdSchema, TimestampSchema, answerBase, requestBase, sessionEventBase } from './common.js';
import { APPROVAL_TIMEOUT_LIMITS, ApprovalPolicySchema } from './approval.js';
import { RememberedApprovalSchema } from './approval-rules.js';
import { BreakpointsSchema } from './breakpoint.js';
import { OriginSchema, QueuedMessageSchema } from './conversation.js';
import { OwnerSchema, ShareRecordSchema } from './sharing.js';
import { StepSchema } from './step.js';
import { FailureReasonSchema, SessionUsageSchema } from './usage.js';

/** The largest `options.maxTokens` a client may ask for. */
export const MAX_TOKENS_LIMIT = 1_000_000_000_000;

/**
 * A session's lifecycle status. `waiting`: a tool call waits for the user's decision, and no run
 * holds the session until one is made (additive, capability `approvals`). `idle`: a fork that
 * waits for the user's first message or correction (additive, capability `conversation`).
 * Clients tolerate statuses they do not know (PROTOCOL.md §5.1).
 */
export const SessionStatusSchema = z.enum(['running', 'paused', 'waiting', 'idle', 'completed', 'failed', 'cancelled', 'interrupted']);

/** Per-session options for `session.create`. Unknown options are refused. */
export const SessionOptionsSchema = z.strictObject({
  /** Milliseconds between streamed tokens, for agents that pace their output (the demo agent). */
  tokenDelayMs: z.number().int().min(0).max(5_000).optional(),
  /** Model name, for LLM agents: one of the agent's `models` when it lists some (capability `models`). */
  model: z.string().min(1).max(200).optional(),
  /** Sampling temperature, for LLM agents. */
  temperature: z.number().min(0).max(2).optional(),
  /** Which tool calls wait for the user's approval (additive, capability `approvals`). */
  approve: ApprovalPolicySchema.optional(),
  /** A pending approval not decided within this many milliseconds is rejected with the reason "timed out". */
  approvalTimeoutMs: z.number().int().min(APPROVAL_TIMEOUT_LIMITS.minMs).max(APPROVAL_TIMEOUT_LIMITS.maxMs).optional(),
  /** A question (`ask_user`) not answered within this many milliseconds is closed as unanswered (additive, capability `questions`, PROTOCOL.md §25.2). */
  inputTimeoutMs: z.number().int().min(APPROVAL_TIMEOUT_LIMITS.minMs).max(APPROVAL_TIMEOUT_LIMITS.maxMs).optional(),
  /** Where the run stops like a debugger's: `"all"` or a list of breakpoints (additive, capability `breakpoints`, PROTOCOL.md §25.5). */
  breakpoints: BreakpointsSchema.optional(),
  /** The session's token budget (input + output of every model call): reaching it fails the session (additive, capability `usage`). */
  maxTokens: z.number().int().min(1).max(MAX_TOKENS_LIMIT).optional(),
});

/** `session.create`: start a session; the creator is subscribed to it. */
export const SessionCreateRequestSchema = z.strictObject({
  type: z.literal('session.create'),
  ...requestBase,
  task: z.string().min(1).max(FIELD_LIMITS.taskMax),
  agent: z.string().min(1).max(64).optional(),
  options: SessionOptionsSchema.optional(),
});

/** `session.subscribe`: watch a session, from a snapshot or from a cursor. */
export const SessionSubscribeRequestSchema = z.strictObject({
  type: z.literal('session.subscribe'),
  ...requestBase,
  sessionId: IdSchema,
  /** Replay every event with `seq > afterSeq`, then go live. Range checks are the server's (`BAD_CURSOR`). */
  afterSeq: z.number().optional(),
});

/** `session.unsubscribe`: stop watching; the run goes on. */
export const SessionUnsubscribeRequestSchema = z.strictObject({
  type: z.literal('session.unsubscribe'),
  ...requestBase,
  sessionId: IdSchema,
});

/** `session.pause`: hold the agent after its current token. */
export const SessionPauseRequestSchema = z.strictObject({
  type: z.literal('session.pause'),
  ...requestBase,
  sessionId: IdSchema,
});

/** `session.resume`: continue a paused or interrupted session. */
export const SessionResumeRequestSchema = z.strictObject({
  type: z.literal('session.resume'),
  ...requestBase,
  sessionId: IdSchema,
});

/** `session.cancel`: stop the session for good. */
export const SessionCancelRequestSchema = z.strictObject({
  type: z.literal('session.cancel'),
  ...requestBase,
  sessionId: IdSchema,
});

/**
 * `session.delete`: remove a session and its whole log, for everyone (additive, v1.1). Its run is
 * stopped; every subscriber and the requester get `session.deleted`; later requests on it get
 * `SESSION_NOT_FOUND`.
 */
export const SessionDeleteRequestSchema = z.strictObject({
  type: z.literal('session.delete'),
  ...requestBase,
  sessionId: IdSchema,
});

/** The summary of a session, as lists and snapshots carry it. */
export const SessionInfoSchema = z.looseObject({
  sessionId: IdSchema,
  task: z.string(),
  agent: z.string(),
  status: SessionStatusSchema,
  revision: z.number().int().min(0),
  createdAt: TimestampSchema,
  /** The reason of a `failed` status (additive). */
  error: z.string().optional(),
  /** The last transient detail of the current status (additive). */
  detail: z.string().optional(),
  /** For a forked session: the session and step it was forked from (additive, capability `conversation`). */
  forkedFrom: OriginSchema.optional(),
  /** The user the session belongs to (additive, capability `users`): absent when the server does not tell users apart. */
  owner: OwnerSchema.optional(),
  /** The tokens and cost of every model call so far (additive, capability `usage`): absent until one was recorded. */
  usage: SessionUsageSchema.optional(),
  /** Why a `failed` session failed, for a client to explain it, e.g. `budget` (additive, capability `usage`). */
  failure: FailureReasonSchema.optional(),
  /** The model the session's agent calls, fixed at creation (additive, capability `models`): absent for an agent that offers none. */
  model: z.string().optional(),
});

/** `session.created`: the answer to `session.create`. */
export const SessionCreatedSchema = z.looseObject({
  type: z.literal('session.created'),
  ...answerBase,
  session: SessionInfoSchema,
});

/** `session.snapshot`: the whole tree of a session, as of event `seq` (0 when it has none yet). */
/** How long a session's agent has run (PROTOCOL.md §11.1): the `running` intervals of its status history, added up. */
export const RunTimeSchema = z.looseObject({
  /** The closed `running` intervals, in milliseconds. */
  totalMs: z.number().min(0),
  /** When the current `running` interval began, while the session runs. */
  runningSince: TimestampSchema.optional(),
});

export const SessionSnapshotSchema = z.looseObject({
  type: z.literal('session.snapshot'),
  ...answerBase,
  session: SessionInfoSchema,
  steps: z.array(StepSchema),
  chain: z.array(IdSchema),
  seq: z.number().int().min(0),
  /** Messages that wait to reach the chain, oldest first (additive, capability `conversation`; absent when none). */
  queued: z.array(QueuedMessageSchema).optional(),
  /** The session's share links that were not revoked, oldest first (additive, capability `sharing`; absent when none). */
  shares: z.array(ShareRecordSchema).optional(),
  /** The session's sub-agents, in the order they started (additive, capability `subagents`; absent when none). */
  subagents: z.array(SubagentInfoSchema).optional(),
  /** The approvals given with `remember: "session"`, oldest first (additive, capability `approval-rules`; absent when none). */
  remembered: z.array(RememberedApprovalSchema).optional(),
  /** How long the agent has run (additive; absent before it first ran, and from older servers). */
  runTime: RunTimeSchema.optional(),
});

/**
 * `session.subscribed`: the answer to `session.subscribe` with `afterSeq` (additive, v1.0), sent
 * before the replayed events: events `afterSeq + 1` … `lastSeq` follow, then live ones.
 */
export const SessionSubscribedSchema = z.looseObject({
  type: z.literal('session.subscribed'),
  ...answerBase,
  sessionId: IdSchema,
  afterSeq: z.number().int().min(0),
  lastSeq: z.number().int().min(0),
});

/** `session.unsubscribed`: the answer to `session.unsubscribe`. */
export const SessionUnsubscribedSchema = z.looseObject({
  type: z.literal('session.unsubscribed'),
  ...answerBase,
  sessionId: IdSchema,
});

/** `session.status`: the session's status changed. Sent to every subscriber. */
export const SessionStatusEventSchema = z.looseObject({
  type: z.literal('session.status'),
  ...sessionEventBase,
  /** Present on the copy sent to the client whose request caused this change. */
  requestId: z.string().optional(),
  status: SessionStatusSchema,
  /** Why the session failed (for `failed`). */
  error: z.string().optional(),
  /** A transient, human-readable condition while the status holds, e.g. "rate limited, retrying in 2 s" (additive). */
  detail: z.string().optional(),
  /** For `failed`: why, as a machine-readable reason (additive, capability `usage`). */
  failure: FailureReasonSchema.optional(),
});

/**
 * `session.deleted`: the session was deleted (additive, v1.1). Its last event, at `seq` = the last
 * stored seq + 1, sent to every subscriber; the requester's copy carries `requestId` and doubles as
 * the answer to `session.delete`. Never stored or replayed: the log is deleted with the session.
 */
export const SessionDeletedEventSchema = z.looseObject({
  type: z.literal('session.deleted'),
  ...sessionEventBase,
  /** Present on the copy sent to the client whose `session.delete` caused it. */
  requestId: z.string().optional(),
});

export type SessionStatus = z.infer<typeof SessionStatusSchema>;
export type SessionOptions = z.infer<typeof SessionOptionsSchema>;
export type SessionCreateRequest = z.infer<typeof SessionCreateRequestSchema>;
export type SessionSubscribeRequest = z.infer<typeof SessionSubscribeRequestSchema>;
export type SessionUnsubscribeRequest = z.infer<typeof SessionUnsubscribeRequestSchema>;
export type SessionPauseRequest = z.infer<typeof SessionPauseRequestSchema>;
export type SessionResumeRequest = z.infer<typeof SessionResumeRequestSchema>;
export type SessionCancelRequest = z.infer<typeof SessionCancelRequestSchema>;
export type SessionDeleteRequest = z.infer<typeof SessionDeleteRequestSchema>;
export type SessionInfo = z.infer<typeof SessionInfoSchema>;
export type SessionCreated = z.infer<typeof SessionCreatedSchema>;
export type SessionSnapshot = z.infer<typeof SessionSnapshotSchema>;
export type RunTime = z.infer<typeof RunTimeSchema>;
export type SessionSubscribed = z.infer<typeof SessionSubscribedSchema>;
export type SessionUnsubscribed = z.infer<typeof SessionUnsubscribedSchema>;
export type SessionStatusEvent = z.infer<typeof SessionStatusEventSchema>;
export type SessionDeletedEvent = z.infer<typeof SessionDeletedEventSchema>;
