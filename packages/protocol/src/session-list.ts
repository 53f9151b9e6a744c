import { z } from 'zod';
import { IdSchema, answerBase, requestBase } from './common.js';
import { SessionInfoSchema } from './session.js';

/**
 * How many sessions a list holds: `limit` when given (1 to `max`), else `default` for the window
 * `sessions.watch` answers with and keeps fresh, `pageDefault` for a page of `GET /api/sessions`.
 */
export const SESSION_LIST_LIMITS = { default: 50, pageDefault: 20, max: 100 } as const;

/**
 * `sessions.watch` (additive, v1.0): follow the list of sessions. Answered with `sessions.watching`
 * (the newest sessions); then this connection gets `sessions.changed` for every session created
 * or whose summary changed (status, revision) and `sessions.removed` for every deleted one.
 * Watching again answers with a fresh list.
 */
export const SessionsWatchRequestSchema = z.strictObject({
  type: z.literal('sessions.watch'),
  ...requestBase,
  limit: z.number().int().min(1).max(SESSION_LIST_LIMITS.max).optional(),
});

/** `sessions.unwatch`: stop following the list. */
export const SessionsUnwatchRequestSchema = z.strictObject({
  type: z.literal('sessions.unwatch'),
  ...requestBase,
});

/** `sessions.watching`: the answer to `sessions.watch`, the newest sessions first. */
export const SessionsWatchingSchema = z.looseObject({
  type: z.literal('sessions.watching'),
  ...answerBase,
  sessions: z.array(SessionInfoSchema),
});

/** `sessions.unwatched`: the answer to `sessions.unwatch`. */
export const SessionsUnwatchedSchema = z.looseObject({
  type: z.literal('sessions.unwatched'),
  ...answerBase,
});

/** `sessions.changed`: a session was created, or its summary changed; `session` is the whole new summary. */
export const SessionsChangedSchema = z.looseObject({
  type: z.literal('sessions.changed'),
  session: SessionInfoSchema,
});

/** `sessions.removed`: a session was deleted with its log. */
export const SessionsRemovedSchema = z.looseObject({
  type: z.literal('sessions.removed'),
  sessionId: IdSchema,
});

export type SessionsWatchRequest = z.infer<typeof SessionsWatchRequestSchema>;
export type SessionsUnwatchRequest = z.infer<typeof SessionsUnwatchRequestSchema>;
export type SessionsWatching = z.infer<typeof SessionsWatchingSchema>;
export type SessionsUnwatched = z.infer<typeof SessionsUnwatchedSchema>;
export type SessionsChanged = z.infer<typeof SessionsChangedSchema>;
export type SessionsRemoved = z.infer<typeof SessionsRemovedSchema>;
