import type { ErrorCode, ErrorDetail, ErrorFrame } from '../error.js';

/**
 * A request that did not succeed: the server's `error` answer (same `code`, `message`, `details`),
 * or `TIMEOUT` / `DISCONNECTED` raised by the client itself.
 */
export class InterthoughtError extends Error {
  override readonly name = 'InterthoughtError';
  constructor(
    /** A stable code from `ERROR_CODES`; a newer server may send codes this version does not list. */
    readonly code: ErrorCode | (string & {}),
    message: string,
    /** One entry per schema issue, for `BAD_FRAME` and `BAD_CORRECTION`. */
    readonly details?: ErrorDetail[],
    /** The id of the request this error answers, when there was one. */
    readonly requestId?: string,
  ) {
    super(message);
  }

  /** The error carried by an `error` frame. */
  static fromFrame(frame: ErrorFrame): InterthoughtError {
    return new InterthoughtError(frame.code, frame.message, frame.details, frame.requestId);
  }
}
