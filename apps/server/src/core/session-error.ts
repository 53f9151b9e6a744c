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
