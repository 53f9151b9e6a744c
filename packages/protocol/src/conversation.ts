import { z } from 'zod';
import { FIELD_LIMITS } from './limits.js';
import { IdSchema, TimestampSchema, answerBase, requestBase, sessionEventBase } from './common.js';

/*
 * Conversations (capability `conversation`, PROTOCOL.md §20): the user's own turns on the chain
 * (`user_message` steps), follow-ups and steering while the agent runs, forks, export and import.
 * The step schema is imported lazily by the events below (step.ts imports this file's origin type).
 */

/** When a message sent while the agent runs reaches the chain. */
export const MessageModeSchema = z.enum(['steer', 'queue']);

/** Where a copied step or a forked session came from. */
export const OriginSchema = z.looseObject({
  sessionId: IdSchema,
  stepId: IdSchema,
  /** The step's `index` in its chain, on `SessionInfo.forkedFrom` (additive, PROTOCOL.md §20.4): "step index + 1" for people. */
  index: z.number().int().min(0).optional(),
});

/** `session.message`: the user says something to the agent of a session. */
export const SessionMessageRequestSchema = z.strictObject({
  type: z.literal('session.message'),
  ...requestBase,
  sessionId: IdSchema,
  text: z.string().min(1).max(FIELD_LIMITS.messageMax),
  /** While the agent runs: `steer` (default) at its next step boundary, `queue` once its turn ends. */
  mode: MessageModeSchema.optional(),
});

/** `message.accepted`: the answer to `session.message`; `stepId` is the id its `user_message` step has (or will have, once queued). */
export const MessageAcceptedSchema = z.looseObject({
  type: z.literal('message.accepted'),
  ...answerBase,
  sessionId: IdSchema,
  stepId: IdSchema,
  /** True when the message waits (`message.queued`); false when it is on the chain already. */
  queued: z.boolean(),
});

/** A message that waits for a step boundary (`steer`) or for the end of the turn (`queue`). */
export const QueuedMessageSchema = z.looseObject({
  stepId: IdSchema,
  text: z.string(),
  mode: MessageModeSchema,
  at: TimestampSchema,
  /** Who sent it and their name (additive, capability `users`). */
  by: z.string().optional(),
  byName: z.string().optional(),
});

/** `message.queued`: a message sent while the agent runs waits; it reaches the chain as a `user_message` step with this `stepId`. */
export const MessageQueuedEventSchema = z.looseObject({
  type: z.literal('message.queued'),
  ...sessionEventBase,
  stepId: IdSchema,
  text: z.string(),
  mode: MessageModeSchema,
  by: z.string().optional(),
  byName: z.string().optional(),
});

export type MessageMode = z.infer<typeof MessageModeSchema>;
export type Origin = z.infer<typeof OriginSchema>;
export type SessionMessageRequest = z.infer<typeof SessionMessageRequestSchema>;
export type MessageAccepted = z.infer<typeof MessageAcceptedSchema>;
export type QueuedMessage = z.infer<typeof QueuedMessageSchema>;
export type MessageQueuedEvent = z.infer<typeof MessageQueuedEventSchema>;
