import { z } from 'zod';
import { StepApprovalSchema } from './approval.js';
import { OriginSchema } from './conversation.js';
import { IdSchema, SeqSchema, TimestampSchema, sessionEventBase } from './common.js';
import { CallUsageSchema } from './usage.js';

import { AgentStepKindSchema, StepKindSchema } from './step-kind.js';
import { StepQuestionSchema } from './question.js';
import { StepBreakpointSchema } from './breakpoint.js';
import { LessonSourceSchema } from './corrections.js';

export { AgentStepKindSchema, StepKindSchema };

/** Where a step is in its life. `invalidated` steps are kept, never deleted. */
export const StepStatusSchema = z.enum(['streaming', 'completed', 'corrected', 'invalidated']);

/** The record of a user's correction, carried by the step that replaced the corrected one. */
export const CorrectionInfoSchema = z.looseObject({
  /** The replaced step's content at the moment of the correction (partial if it was streaming). */
  previousContent: z.string(),
  note: z.string().optional(),
  at: TimestampSchema,
  /** Who corrected it: the user's id when the server tells users apart, else the connection id. */
  by: z.string().optional(),
  /** The corrector's display name, when known (additive, capability `users`). */
  byName: z.string().optional(),
});

/** A node of the session's step tree. */
export const StepSchema = z.looseObject({
  stepId: IdSchema,
  /** The step this one follows; `null` for a first step. */
  parentId: IdSchema.nullable(),
  /** Its depth in the tree: 0 for a first step. */
  index: z.number().int().min(0),
  kind: StepKindSchema,
  status: StepStatusSchema,
  content: z.string(),
  /** The session revision this step was created in. */
  revision: z.number().int().min(0),
  /** The step this one replaced, for a corrected step. */
  correctionOf: IdSchema.optional(),
  correction: CorrectionInfoSchema.optional(),
  /** The tool's name, for `tool_call` and `observation` steps. */
  tool: z.string().optional(),
  /** The tool's structured result (JSON), for `observation` steps. */
  result: z.unknown().optional(),
  /** When the step started and finished streaming (additive, v1.0). */
  startedAt: TimestampSchema.optional(),
  completedAt: TimestampSchema.optional(),
  /** For a `tool_call` step the policy made wait: its approval and the decision on it (additive, capability `approvals`). */
  approval: StepApprovalSchema.optional(),
  /** For a step copied into a forked or imported session: the step it copies (additive, capability `conversation`). */
  copiedFrom: OriginSchema.optional(),
  /** For a `user_message` step: who wrote it (a user id, else the connection id) and their name (additive, capability `users`). */
  by: z.string().optional(),
  byName: z.string().optional(),
  /** On the last step a model call produced: that call's tokens, cost and timing (additive, capability `usage`). */
  usage: CallUsageSchema.optional(),
  /** For a step a sub-agent wrote: the `delegate` call that started it, its scope (additive, capability `subagents`, PROTOCOL.md §24.2). */
  scope: IdSchema.optional(),
  /** For an `ask_user` call: the question's trail, asked and answered (additive, capability `questions`, PROTOCOL.md §25.1). */
  question: StepQuestionSchema.optional(),
  /** For a step a breakpoint stopped at (additive, capability `breakpoints`, PROTOCOL.md §25.5). */
  breakpoint: StepBreakpointSchema.optional(),
  /** For the lessons step a run begins with: the earlier corrections its guidance came from (additive, capability `corrections-data`, PROTOCOL.md §26.4). */
  lessons: z.array(LessonSourceSchema).optional(),
});

/** `step.started`: a new step begins streaming on the head of the chain. */
export const StepStartedEventSchema = z.looseObject({
  type: z.literal('step.started'),
  ...sessionEventBase,
  step: StepSchema,
});

/**
 * `step.delta`: append-only text of a streaming step. A server may coalesce consecutive deltas of
 * one step for a slow reader: `text` is then their texts joined and `seq` the last one's.
 */
export const StepDeltaEventSchema = z.looseObject({
  type: z.literal('step.delta'),
  ...sessionEventBase,
  stepId: IdSchema,
  text: z.string(),
  /** Present on a coalesced delta: this frame stands for events fromSeq…seq of this step (additive). */
  fromSeq: SeqSchema.optional(),
});

/** `step.completed`: the step's final content, equal to its deltas joined. */
export const StepCompletedEventSchema = z.looseObject({
  type: z.literal('step.completed'),
  ...sessionEventBase,
  stepId: IdSchema,
  content: z.string(),
  tool: z.string().optional(),
  result: z.unknown().optional(),
  /** On a `tool_call` a standing decision let run or refused without asking: a remembered approval or a rule (PROTOCOL.md §25.3, §25.4). */
  approval: StepApprovalSchema.optional(),
});

/** `step.corrected`: a user's correction replaced a step on the chain. */
export const StepCorrectedEventSchema = z.looseObject({
  type: z.literal('step.corrected'),
  ...sessionEventBase,
  step: StepSchema,
  revision: z.number().int().min(0),
});

/** `steps.invalidated`: the replaced step and every later step of the old chain. */
export const StepsInvalidatedEventSchema = z.looseObject({
  type: z.literal('steps.invalidated'),
  ...sessionEventBase,
  stepIds: z.array(IdSchema),
  byStepId: IdSchema,
  revision: z.number().int().min(0),
});

/**
 * `steps.copied`: a forked session's chain, copied at once from the source's path (additive,
 * capability `conversation`). The steps continue the head one after another.
 */
export const StepsCopiedEventSchema = z.looseObject({
  type: z.literal('steps.copied'),
  ...sessionEventBase,
  steps: z.array(StepSchema),
  from: OriginSchema,
  /** The session's revision from here on, when the copy carries one over (an import from a snapshot); a fork starts at 0. */
  revision: z.number().int().min(0).optional(),
});

export type StepKind = z.infer<typeof StepKindSchema>;
export type StepStatus = z.infer<typeof StepStatusSchema>;
export type CorrectionInfo = z.infer<typeof CorrectionInfoSchema>;
export type Step = z.infer<typeof StepSchema>;
export type StepStartedEvent = z.infer<typeof StepStartedEventSchema>;
export type StepDeltaEvent = z.infer<typeof StepDeltaEventSchema>;
export type StepCompletedEvent = z.infer<typeof StepCompletedEventSchema>;
export type StepCorrectedEvent = z.infer<typeof StepCorrectedEventSchema>;
export type StepsInvalidatedEvent = z.infer<typeof StepsInvalidatedEventSchema>;
export type StepsCopiedEvent = z.infer<typeof StepsCopiedEventSchema>;
