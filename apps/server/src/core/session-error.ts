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
