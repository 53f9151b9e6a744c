import { z } from 'zod';
import { FIELD_LIMITS } from './limits.js';
import { IdSchema, answerBase, requestBase } from './common.js';

/** `step.correct`: replace a step's content; the agent regenerates from there. */
export const StepCorrectRequestSchema = z.strictObject({
  type: z.literal('step.correct'),
  ...requestBase,
  sessionId: IdSchema,
  stepId: IdSchema,
  content: z.string().min(1).max(FIELD_LIMITS.correctionMax),
  note: z.string().max(FIELD_LIMITS.noteMax).optional(),
  /** The revision the client saw; refused with `STALE_REVISION` if the step left the chain since. */
  baseRevision: z.number().int().min(0).optional(),
});

/** `correction.accepted`: the answer to `step.correct`; the events follow. */
export const CorrectionAcceptedSchema = z.looseObject({
  type: z.literal('correction.accepted'),
  ...answerBase,
  sessionId: IdSchema,
  stepId: IdSchema,
  newStepId: IdSchema,
  revision: z.number().int().min(0),
});

export type StepCorrectRequest = z.infer<typeof StepCorrectRequestSchema>;
export type CorrectionAccepted = z.infer<typeof CorrectionAcceptedSchema>;
