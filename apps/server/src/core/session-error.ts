import type { ErrorCode, ErrorDetail } from '@interthought/protocol';

/**
 * A request the session core refuses. The message says what to do; the transport turns it
 * into an `error` frame with the same code. Never ends a session.
 */
export class SessionError extends Error {
  override readonly name = 'SessionError';
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: ErrorDetail[],
  ) {
    super(message);
  }
}

/** The refusal for an id that is neither in memory nor in the store. */
export function notFound(sessionId: string): SessionError {
  return new SessionError('SESSION_NOT_FOUND', `Session ${String(sessionId)} does not exist. List sessions to find its id.`);
}

/** The refusal for a subscribe cursor outside the session's log: one wording for every fan-out. */
export function badCursor(sessionId: string, lastSeq: number, afterSeq: unknown): SessionError {
  return new SessionError(
    'BAD_CURSOR',
    `afterSeq must be an integer from 0 to ${lastSeq} (the last seq of session ${sessionId}); got ${String(afterSeq)}. Omit it to get a snapshot.`,
  );
}

/** The refusal for a session-list cursor no store handed out (a `SessionError`, so REST answers 400): one wording for every store. */
export function badListCursor(cursor: string): SessionError {
  return new SessionError('BAD_CURSOR', `"${cursor.slice(0, 80)}" is not a sessions cursor; pass the nextCursor of a previous page.`);
}
