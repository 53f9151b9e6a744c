import { z } from 'zod';
import { answerBase } from './common.js';

/** Every error code the server sends, as one table. Codes are stable; messages may change. */
export const ERROR_CODES = {
  /** The frame was not valid JSON (or was binary). */
  BAD_JSON: 'BAD_JSON',
  /** The frame was JSON but failed its schema; `details` lists each issue. */
  BAD_FRAME: 'BAD_FRAME',
  /** The frame's `type` is not a client request type. */
  UNKNOWN_TYPE: 'UNKNOWN_TYPE',
  SESSION_NOT_FOUND: 'SESSION_NOT_FOUND',
  STEP_NOT_FOUND: 'STEP_NOT_FOUND',
  STEP_INVALIDATED: 'STEP_INVALIDATED',
  STALE_REVISION: 'STALE_REVISION',
  SESSION_CANCELLED: 'SESSION_CANCELLED',
  /** The corrected content is not acceptable for that step (e.g. tool input that fails the tool's schema). */
  BAD_CORRECTION: 'BAD_CORRECTION',
  /** The request is illegal in the session's current status (e.g. pausing a paused session). */
  INVALID_STATE: 'INVALID_STATE',
  /** `tool.approve` / `tool.reject` of a step with no pending approval: already decided, not a tool call, or never asked (capability `approvals`). */
  APPROVAL_NOT_PENDING: 'APPROVAL_NOT_PENDING',
  /** `input.provide` of a step with no waiting question: answered already (by whom), timed out, not an `ask_user` call, or the session is not waiting (capability `questions`). */
  INPUT_NOT_PENDING: 'INPUT_NOT_PENDING',
  /** `approvals.forget` of a tool with no remembered approval (capability `approval-rules`). */
  NOT_REMEMBERED: 'NOT_REMEMBERED',
  /** A `step.correct` of a tool call whose new input a `deny` rule of the session matches (capability `approval-rules`). */
  TOOL_DENIED: 'TOOL_DENIED',
  AGENT_NOT_FOUND: 'AGENT_NOT_FOUND',
  /** The agent exists but is not configured or cannot run now. */
  AGENT_UNAVAILABLE: 'AGENT_UNAVAILABLE',
  /** `session.create` names an option value the agent does not take, e.g. a model it does not offer (capability `models`). */
  INVALID_OPTIONS: 'INVALID_OPTIONS',
  /** An `afterSeq` that is negative, not an integer, or beyond the last `seq`. */
  BAD_CURSOR: 'BAD_CURSOR',
  /** A per-connection or per-server cap was reached (sessions, subscriptions). */
  LIMIT_EXCEEDED: 'LIMIT_EXCEEDED',
  RATE_LIMITED: 'RATE_LIMITED',
  /** The session's tokens reached its budget: nothing more runs on it unless the budget is raised (capability `usage`). */
  BUDGET_EXCEEDED: 'BUDGET_EXCEEDED',
  UNAUTHORIZED: 'UNAUTHORIZED',
  FORBIDDEN: 'FORBIDDEN',
  /** No answer arrived in time (raised by the client, never sent by the server). */
  TIMEOUT: 'TIMEOUT',
  /** The connection closed before the answer arrived (raised by the client). */
  DISCONNECTED: 'DISCONNECTED',
  /** The server speaks another major version of the protocol (raised by the client, which then stops). */
  PROTOCOL_MISMATCH: 'PROTOCOL_MISMATCH',
  INTERNAL: 'INTERNAL',
} as const;

/** A stable UPPER_SNAKE error code. */
export type ErrorCode = (typeof ERROR_CODES)[keyof typeof ERROR_CODES];

/** One schema issue of a `BAD_FRAME` (or `BAD_CORRECTION`) error. */
export const ErrorDetailSchema = z.looseObject({
  path: z.array(z.union([z.string(), z.number()])),
  message: z.string(),
});

/** `error`: the answer to a request that could not be carried out. Never ends a session. */
export const ErrorFrameSchema = z.looseObject({
  type: z.literal('error'),
  ...answerBase,
  code: z.string(),
  message: z.string(),
  details: z.array(ErrorDetailSchema).optional(),
});

export type ErrorDetail = z.infer<typeof ErrorDetailSchema>;
export type ErrorFrame = z.infer<typeof ErrorFrameSchema>;
