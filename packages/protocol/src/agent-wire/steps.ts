import { z } from 'zod';
import { AGENT_FIELD_LIMITS } from './version.js';
import { RunIdSchema } from './run.js';

/** The worker's own name for a step of a run; the server maps it to the session's step id. */
export const StepRefSchema = z.string().min(1).max(AGENT_FIELD_LIMITS.refMax);

/** The kinds a worker may write: every step kind but `user_message`, which only the user says. */
export const WorkerStepKindSchema = z.enum(['thought', 'action', 'tool_call', 'observation', 'final_answer']);

const ToolNameSchema = z.string().min(1).max(AGENT_FIELD_LIMITS.toolNameMax);

/** `step.start`: a new step on the head of the chain; it ends the step still open, if any. */
export const WorkerStepStartSchema = z.strictObject({
  type: z.literal('step.start'),
  runId: RunIdSchema,
  ref: StepRefSchema,
  kind: WorkerStepKindSchema,
  /** The tool, for `tool_call` and `observation`. */
  tool: ToolNameSchema.optional(),
});

/** `step.delta`: append text to an open step. */
export const WorkerStepDeltaSchema = z.strictObject({
  type: z.literal('step.delta'),
  runId: RunIdSchema,
  ref: StepRefSchema,
  text: z.string(),
});

/** `step.end`: finish a step; `result` is a tool's structured output (observations). */
export const WorkerStepEndSchema = z.strictObject({
  type: z.literal('step.end'),
  runId: RunIdSchema,
  ref: StepRefSchema,
  result: z.unknown().optional(),
});

const TokensSchema = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);

/** `usage`: what one model call used, once, after its steps (the `ModelCallReport` fields; `refs` for its step ids). */
export const WorkerUsageSchema = z.strictObject({
  type: z.literal('usage'),
  runId: RunIdSchema,
  model: z.string().min(1).max(AGENT_FIELD_LIMITS.modelMax),
  usage: z.strictObject({
    inputTokens: TokensSchema,
    outputTokens: TokensSchema,
    reasoningTokens: TokensSchema.optional(),
    cachedTokens: TokensSchema.optional(),
  }),
  timeToFirstTokenMs: z.number().min(0).optional(),
  durationMs: z.number().min(0).optional(),
  /** The steps the call produced, in order (empty when none). */
  refs: z.array(StepRefSchema).max(1_000),
});

/** `notice`: a transient condition the user should see ("rate limited, retrying in 2 s"). */
export const WorkerNoticeSchema = z.strictObject({
  type: z.literal('notice'),
  runId: RunIdSchema,
  detail: z.string().min(1).max(AGENT_FIELD_LIMITS.noticeMax),
});

export type WorkerStepKind = z.infer<typeof WorkerStepKindSchema>;
export type WorkerStepStart = z.infer<typeof WorkerStepStartSchema>;
export type WorkerStepDelta = z.infer<typeof WorkerStepDeltaSchema>;
export type WorkerStepEnd = z.infer<typeof WorkerStepEndSchema>;
export type WorkerUsage = z.infer<typeof WorkerUsageSchema>;
export type WorkerNotice = z.infer<typeof WorkerNoticeSchema>;
