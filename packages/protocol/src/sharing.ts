import { z } from 'zod';
import { IdSchema, TimestampSchema, answerBase, requestBase, sessionEventBase } from './common.js';

/*
 * Users and sharing (capabilities `users` and `sharing`, PROTOCOL.md §21): a session belongs to the
 * user who created it; its owner may share it by link, as a viewer (watch, read) or an editor (also
 * correct, message and decide approvals). A share is a signed, revocable capability for one session.
 */

/** Who a server knows a client as: the signed-in user (INTERTHOUGHT_AUTH `jwt` or `proxy`). */
export const UserSchema = z.looseObject({
  /** Stable user id (a JWT's `sub`, or the proxy's user header). */
  id: z.string(),
  /** What to show for them. */
  name: z.string(),
  /** Whether they see and may act on every session. */
  admin: z.boolean().optional(),
});

/** The user a session belongs to (absent on sessions created while the server did not tell users apart). */
export const OwnerSchema = z.looseObject({
  id: z.string(),
  name: z.string(),
});

/** What a share link lets its holder do: `viewer` watches and reads; `editor` may also correct, message and decide. */
export const ShareRoleSchema = z.enum(['viewer', 'editor']);

/** How long a share link may last: a minute at least, a year at most; without `expiresInSec` it lasts until revoked. */
export const SHARE_EXPIRY_LIMITS = { minSec: 60, maxSec: 365 * 24 * 60 * 60 } as const;

/** Longest share token a client presents (`?share=`): far above the server's, far below any frame limit. */
export const SHARE_TOKEN_MAX = 1_024;

/** A WebSocket opened with a share link is closed with this code when its share is revoked or expires. */
export const SHARE_ENDED_CLOSE = { code: 4403, reason: 'share ended' } as const;

/** A share of a session as its log records it: never its token. */
export const ShareRecordSchema = z.looseObject({
  shareId: IdSchema,
  role: ShareRoleSchema,
  createdAt: TimestampSchema,
  /** When the link stops working; absent: until revoked. */
  expiresAt: TimestampSchema.optional(),
  /** Who shared it: a user id (or a connection id when the server does not tell users apart). */
  by: z.string(),
  byName: z.string().optional(),
});

/** `session.share`: make a link to the session (owner or admin only). */
export const SessionShareRequestSchema = z.strictObject({
  type: z.literal('session.share'),
  ...requestBase,
  sessionId: IdSchema,
  role: ShareRoleSchema,
  expiresInSec: z.number().int().min(SHARE_EXPIRY_LIMITS.minSec).max(SHARE_EXPIRY_LIMITS.maxSec).optional(),
});

/** `session.shared`: the answer to `session.share`. The token is in this answer only: it is never stored or sent again. */
export const SessionSharedSchema = z.looseObject({
  type: z.literal('session.shared'),
  ...answerBase,
  sessionId: IdSchema,
  shareId: IdSchema,
  role: ShareRoleSchema,
  expiresAt: TimestampSchema.optional(),
  /** The capability itself: present it as `?share=` on the WebSocket or a REST call. */
  token: z.string(),
  /** The session page of the web UI with the token: opens without an account. */
  url: z.string(),
});

/** `session.unshare`: revoke a link; every connection opened with it loses access at once. */
export const SessionUnshareRequestSchema = z.strictObject({
  type: z.literal('session.unshare'),
  ...requestBase,
  sessionId: IdSchema,
  shareId: IdSchema,
});

/** `session.unshared`: the answer to `session.unshare`. */
export const SessionUnsharedSchema = z.looseObject({
  type: z.literal('session.unshared'),
  ...answerBase,
  sessionId: IdSchema,
  shareId: IdSchema,
});

/** `share.created`: a link to the session was made (stored in its log; the token is not). */
export const ShareCreatedEventSchema = z.looseObject({
  type: z.literal('share.created'),
  ...sessionEventBase,
  share: ShareRecordSchema,
});

/** `share.revoked`: a link stopped working. */
export const ShareRevokedEventSchema = z.looseObject({
  type: z.literal('share.revoked'),
  ...sessionEventBase,
  shareId: IdSchema,
  by: z.string(),
  byName: z.string().optional(),
});

/** What a connection opened with a share link may reach (`hello.share`). */
export const ShareGrantSchema = z.looseObject({
  sessionId: IdSchema,
  shareId: IdSchema,
  role: ShareRoleSchema,
  expiresAt: TimestampSchema.optional(),
});

export type User = z.infer<typeof UserSchema>;
export type Owner = z.infer<typeof OwnerSchema>;
export type ShareRole = z.infer<typeof ShareRoleSchema>;
export type ShareRecord = z.infer<typeof ShareRecordSchema>;
export type SessionShareRequest = z.infer<typeof SessionShareRequestSchema>;
export type SessionShared = z.infer<typeof SessionSharedSchema>;
export type SessionUnshareRequest = z.infer<typeof SessionUnshareRequestSchema>;
export type SessionUnshared = z.infer<typeof SessionUnsharedSchema>;
export type ShareCreatedEvent = z.infer<typeof ShareCreatedEventSchema>;
export type ShareRevokedEvent = z.infer<typeof ShareRevokedEventSchema>;
export type ShareGrant = z.infer<typeof ShareGrantSchema>;
