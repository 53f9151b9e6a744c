import { z } from 'zod';
import { IdSchema } from './common.js';
import { ShareGrantSchema, UserSchema } from './sharing.js';

/** Limits the server enforces on this connection. */
export const ServerLimitsSchema = z.looseObject({
  maxFrameBytes: z.number().int(),
  maxTaskChars: z.number().int(),
  maxCorrectionChars: z.number().int(),
  maxSessionsPerConnection: z.number().int(),
  maxSubscriptionsPerConnection: z.number().int(),
  /** Sustained requests per second allowed by the token bucket. */
  requestsPerSecond: z.number(),
  /** Requests allowed in a burst. */
  requestBurst: z.number().int(),
});

/** `hello`: the first frame on every connection, sent by the server. */
export const HelloSchema = z.looseObject({
  type: z.literal('hello'),
  protocol: z.string(),
  serverVersion: z.string(),
  connectionId: IdSchema,
  /** Feature names the server supports, e.g. `corrections`, `replay`, `pause`. */
  capabilities: z.array(z.string()),
  limits: ServerLimitsSchema,
  /** The signed-in user this connection speaks for (additive, capability `users`). */
  user: UserSchema.optional(),
  /** The session this connection reaches through a share link, and as what (additive, capability `sharing`). */
  share: ShareGrantSchema.optional(),
});

export type ServerLimits = z.infer<typeof ServerLimitsSchema>;
export type Hello = z.infer<typeof HelloSchema>;
