import { z } from 'zod';
import { IdSchema } from './common.js';
import { ShareGrantSchema, UserSchema } from './sharing.js';

/** Every feature this version of the protocol names in `hello.capabilities` (PROTOCOL.md §4.1), in the order the server lists them. */
export const CAPABILITIES = [
  'corrections',
  'replay',
  'pause',
  'branches',
  'delete',
  'coalesced-deltas',
  'session-list',
  'approvals',
  'conversation',
  'auth-refresh',
  'users',
  'sharing',
  'usage',
  'models',
  'subagents',
  'questions',
  'approval-rules',
  'breakpoints',
  'corrections-data',
] as const;

/** A feature named in `hello.capabilities`. */
export type Capability = (typeof CAPABILITIES)[number];

/**
 * One entry of `hello.capabilities`: a known `Capability`, or a newer server's feature, which
 * clients ignore (the type keeps both: `string & {}` stops the union collapsing to `string`).
 */
export const CapabilitySchema = z.union([z.enum(CAPABILITIES), z.string()]) as z.ZodType<Capability | (string & {}), string>;

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
  /** How deep sub-agents may nest (additive, capability `subagents`, PROTOCOL.md §24.1). */
  maxSubagentDepth: z.number().int().min(1).optional(),
});

/** `hello`: the first frame on every connection, sent by the server. */
export const HelloSchema = z.looseObject({
  type: z.literal('hello'),
  protocol: z.string(),
  serverVersion: z.string(),
  connectionId: IdSchema,
  /** Feature names the server supports (`CAPABILITIES`); clients ignore names they do not know. */
  capabilities: z.array(CapabilitySchema),
  limits: ServerLimitsSchema,
  /** The signed-in user this connection speaks for (additive, capability `users`). */
  user: UserSchema.optional(),
  /** The session this connection reaches through a share link, and as what (additive, capability `sharing`). */
  share: ShareGrantSchema.optional(),
});

export type ServerLimits = z.infer<typeof ServerLimitsSchema>;
export type Hello = z.infer<typeof HelloSchema>;
