/**
 * Who a request or a WebSocket speaks for, resolved once per HTTP request or upgrade
 * (INTERTHOUGHT_AUTH `jwt` or `proxy`; there is no user with `none` or `token`).
 */
export interface Identity {
  /** Stable user id: the JWT's `sub`, or the proxy's user header. */
  id: string;
  /** What to show: `name`, `preferred_username` or `email` of a JWT, the proxy's user; else the id. */
  name: string;
  /** Whether the user may administer the server (INTERTHOUGHT_JWT_ADMIN_CLAIM). */
  admin: boolean;
  /** When the credential stops being valid, in ms since the epoch (a JWT's `exp`); a WebSocket is closed then. */
  expiresAt?: number;
}

/** Why a credential was not accepted; `message` is for the client and never holds the credential. */
export class AuthenticationError extends Error {
  override readonly name = 'AuthenticationError';
  constructor(
    readonly code: 'UNAUTHORIZED' | 'FORBIDDEN' | 'INTERNAL',
    message: string,
  ) {
    super(message);
  }
}

/** What an authenticator reads of a request: its headers, query token and the address it came from. */
export interface CredentialSource {
  headers: Record<string, string | string[] | undefined>;
  /** The bearer token (`Authorization: Bearer` or `?token=`), if any. */
  bearer: string | undefined;
  /** The peer address of the TCP connection (never a forwarded header). */
  remoteAddress: string | undefined;
}

/** Resolves an identity, or rejects with an `AuthenticationError`. */
export interface Authenticator {
  authenticate(source: CredentialSource): Promise<Identity>;
  /** Verify a replacement bearer token (jwt only: `auth.refresh`). */
  verifyToken?(token: string): Promise<Identity>;
}
