import { z } from 'zod';
import { TimestampSchema, answerBase, requestBase } from './common.js';

/*
 * Sign-in that outlives a token (capability `auth-refresh`, PROTOCOL.md §3.3): a server that
 * verifies JWTs closes a WebSocket when its token expires, unless the client sends a newer token
 * for the same user first.
 */

/** Longest token `auth.refresh` carries: far above any real JWT, far below the frame limit. */
export const AUTH_TOKEN_MAX = 8_192;

/** The close code and reason of a WebSocket whose token expired (a reconnect with a fresh token is welcome). */
export const TOKEN_EXPIRED_CLOSE = { code: 4401, reason: 'token expired' } as const;

/** `auth.refresh`: a newer token for the connection's user; the connection then lasts until it expires. */
export const AuthRefreshRequestSchema = z.strictObject({
  type: z.literal('auth.refresh'),
  ...requestBase,
  token: z.string().min(1).max(AUTH_TOKEN_MAX),
});

/** `auth.refreshed`: the answer to `auth.refresh`; the connection is closed at `expiresAt` unless refreshed again. */
export const AuthRefreshedSchema = z.looseObject({
  type: z.literal('auth.refreshed'),
  ...answerBase,
  expiresAt: TimestampSchema,
});

export type AuthRefreshRequest = z.infer<typeof AuthRefreshRequestSchema>;
export type AuthRefreshed = z.infer<typeof AuthRefreshedSchema>;
