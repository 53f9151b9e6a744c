import { z } from 'zod';
import { IdSchema, requestBase } from './common.js';
import { SessionOptionsSchema } from './session.js';

/*
 * `session.fork` (PROTOCOL.md §9.14, §20.4, §26.5): its own file because its replay fields take
 * the session options, and session.ts imports the conversation schemas.
 */

/** `session.fork`: a new session whose chain is a copy of the source's path up to and including `stepId`. */
export const SessionForkRequestSchema = z.strictObject({
  type: z.literal('session.fork'),
  ...requestBase,
  sessionId: IdSchema,
  stepId: IdSchema,
  /** Replay on another agent (additive, capability `corrections-data`, PROTOCOL.md §26.5): replaces the source's agent. */
  agent: z.string().min(1).max(64).optional(),
  /** Replaces the source's options, checked as in `session.create`. */
  options: SessionOptionsSchema.optional(),
  /** Start the agent at once from the copied chain instead of waiting `idle`. */
  run: z.boolean().optional(),
});

export type SessionForkRequest = z.infer<typeof SessionForkRequestSchema>;
