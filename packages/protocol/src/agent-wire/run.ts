import { z } from 'zod';
import { SessionOptionsSchema } from '../session.js';
import { StepSchema } from '../step.js';
import { AGENT_FIELD_LIMITS } from './version.js';

/** A server-chosen run id; a worker writes only to runs it was given. */
export const RunIdSchema = z.string().min(1).max(AGENT_FIELD_LIMITS.refMax);

/** Why the chain ends in a tool call nobody ran yet, which the worker runs first (PROTOCOL.md Part II §A5). */
export const PendingCallReasonSchema = z.enum(['approved', 'edited', 'corrected', 'resumed']);

/** The worker's own tool call at the head of the chain: run it with `input`, write its observation, go on. */
export const PendingCallSchema = z.looseObject({
  /** The `tool_call` step (the chain's last). */
  stepId: z.string(),
  tool: z.string(),
  /** The input to run it with: the step's content parsed as JSON (the raw text when it is not JSON). */
  input: z.unknown(),
  why: PendingCallReasonSchema,
});

/** `run.start`: run an agent on a session, continuing after the chain's last step. */
export const RunStartSchema = z.looseObject({
  type: z.literal('run.start'),
  runId: RunIdSchema,
  sessionId: z.string(),
  agent: z.string(),
  task: z.string(),
  /** The current chain, root first, as in-process agents get it: corrected steps carry `correction.note`. */
  chain: z.array(StepSchema),
  options: SessionOptionsSchema.loose(),
  /** Present when the chain ends in a call of the worker's own tool that has not run. */
  call: PendingCallSchema.optional(),
  /** The guidance of the chain's lessons step, for an agent with `"lessons": true` (additive, PROTOCOL.md §26.4, §A5.1). */
  lessons: z.string().optional(),
});

/** `run.abort`: stop the run now; later frames of it are ignored. A correction's new run comes as a new `run.start`. */
export const RunAbortSchema = z.looseObject({
  type: z.literal('run.abort'),
  runId: RunIdSchema,
  reason: z.string(),
});

/** `flow`: wait (`paused: true`) or go on (`paused: false`) sending the run's steps. */
export const FlowSchema = z.looseObject({
  type: z.literal('flow'),
  runId: RunIdSchema,
  paused: z.boolean(),
});

/**
 * `call.cleared`: the answer to the `step.end` of a worker's `tool_call` that does not wait for
 * approval: run the tool now. A call that waits gets `run.abort` instead, and must not run.
 */
export const CallClearedSchema = z.looseObject({
  type: z.literal('call.cleared'),
  runId: RunIdSchema,
  ref: z.string(),
  /** The session's id of the `tool_call` step. */
  stepId: z.string(),
});

/** `run.end`: the worker's run is done (its last step should be the final answer). */
export const RunEndSchema = z.strictObject({
  type: z.literal('run.end'),
  runId: RunIdSchema,
});

/** `run.fail`: the worker's run failed; the session fails with `message`. */
export const RunFailSchema = z.strictObject({
  type: z.literal('run.fail'),
  runId: RunIdSchema,
  message: z.string().min(1).max(AGENT_FIELD_LIMITS.failMessageMax),
});

export type PendingCallReason = z.infer<typeof PendingCallReasonSchema>;
export type PendingCall = z.infer<typeof PendingCallSchema>;
export type RunStart = z.infer<typeof RunStartSchema>;
export type RunAbort = z.infer<typeof RunAbortSchema>;
export type Flow = z.infer<typeof FlowSchema>;
export type CallCleared = z.infer<typeof CallClearedSchema>;
export type RunEnd = z.infer<typeof RunEndSchema>;
export type RunFail = z.infer<typeof RunFailSchema>;
