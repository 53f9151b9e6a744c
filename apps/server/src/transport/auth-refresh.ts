import { ERROR_CODES, type AuthRefreshRequest } from '@interthought/protocol';
import { AuthenticationError, type Identity } from '../auth/identity.js';
import { answer, withRequestId } from '../core/fanout/answer.js';
import { SessionError } from '../core/session-error.js';
import type { Connection } from './connection.js';

/**
 * `auth.refresh` (PROTOCOL.md §9.15): a newer JWT for the connection's user moves its expiry.
 * Another user's token, or one that fails verification, is refused and the connection keeps the
 * expiry it had: a connection never changes user.
 */
export async function refreshSignIn(
  message: AuthRefreshRequest,
  connection: Connection,
  verifyToken: ((token: string) => Promise<Identity>) | undefined,
): Promise<void> {
  const current = connection.user;
  if (verifyToken === undefined || current === undefined) {
    throw new SessionError(ERROR_CODES.INVALID_STATE, 'This server\'s sign-in does not expire (it verifies no JWTs): there is nothing to refresh.');
  }
  let next: Identity;
  try {
    next = await connection.duringRefresh(() => verifyToken(message.token));
  } catch (error) {
    if (!(error instanceof AuthenticationError)) throw error;
    const code = error.code === 'INTERNAL' ? ERROR_CODES.INTERNAL : ERROR_CODES.UNAUTHORIZED;
    throw new SessionError(code, `${error.message} The connection keeps its current sign-in until it expires.`);
  } finally {
    // Re-armed whatever the outcome: an expiry that fell due during the verification closes now.
    connection.expireAt(current.expiresAt);
  }
  if (next.id !== current.id) {
    throw new SessionError(
      ERROR_CODES.FORBIDDEN,
      'This token is for another user. A connection keeps the user it opened with: open a new connection to sign in as someone else.',
    );
  }
  connection.signedInAgain(next);
  answer(withRequestId({ peer: connection }, message.id), { type: 'auth.refreshed', expiresAt: new Date(next.expiresAt ?? Date.now()).toISOString() });
}
