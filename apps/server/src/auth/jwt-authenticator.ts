import { createRemoteJWKSet, errors, jwtVerify, type JWTPayload, type JWTVerifyGetKey, type JWTVerifyOptions } from 'jose';
import type { JwtConfig } from '../config/auth-config.js';
import { isAdminByClaim } from './admin-claim.js';
import { AuthenticationError, type Authenticator, type CredentialSource, type Identity } from './identity.js';

/**
 * Clock skew forgiven between the identity provider and this server, for `nbf` (a token issued by
 * a clock a little ahead). `exp` is held to this server's clock: a WebSocket is closed at `exp`, so
 * a token past it would open a connection only to have it closed at once.
 */
export const JWT_CLOCK_TOLERANCE_S = 5;

/** Longest token read: far above any real JWT, far below the frame cap. */
const MAX_TOKEN_CHARS = 8_192;

const NOT_VALID = 'The token is not valid: its signature or format was refused.';

/** The client's reason for a refusal, from jose's error: short, and never the token. */
function refusal(error: unknown): AuthenticationError {
  if (error instanceof errors.JWTExpired) return new AuthenticationError('UNAUTHORIZED', 'The token has expired: sign in again.');
  if (error instanceof errors.JWTClaimValidationFailed) {
    const why = error.claim === 'nbf' ? 'is not valid yet' : `has the wrong or no "${error.claim}" claim`;
    return new AuthenticationError('UNAUTHORIZED', `The token ${why}.`);
  }
  if (error instanceof errors.JOSEAlgNotAllowed) return new AuthenticationError('UNAUTHORIZED', 'The token is signed with an algorithm this server does not accept.');
  if (error instanceof errors.JWKSTimeout || (error instanceof errors.JOSEError && error.code === 'ERR_JWKS_INVALID')) {
    return new AuthenticationError('INTERNAL', 'The server could not load its identity provider\'s keys; try again shortly.');
  }
  if (error instanceof TypeError) {
    // fetch() failing to reach the JWKS URL.
    return new AuthenticationError('INTERNAL', 'The server could not load its identity provider\'s keys; try again shortly.');
  }
  return new AuthenticationError('UNAUTHORIZED', NOT_VALID);
}

/**
 * Whether the token's signature is spelled as base64url writes it. jose decodes leniently (the
 * last character's padding bits are ignored), so one signature would have several spellings.
 */
function hasCanonicalSignature(token: string): boolean {
  const signature = token.slice(token.lastIndexOf('.') + 1);
  return Buffer.from(signature, 'base64url').toString('base64url') === signature;
}

function displayName(payload: JWTPayload, id: string): string {
  for (const claim of ['name', 'preferred_username', 'email']) {
    const value = payload[claim];
    if (typeof value === 'string' && value.trim() !== '') return value.trim();
  }
  return id;
}

/**
 * Bearer JWTs (INTERTHOUGHT_AUTH=jwt): HS256 with a shared secret, or RS256/ES256 with keys from a
 * JWKS URL. Only those algorithms are accepted, so `alg: none` and an HS256 token forged with a
 * public key as its secret are refused. `sub` and `exp` are required: the user id, and the moment
 * a WebSocket opened with the token is closed.
 */
export function createJwtAuthenticator(config: JwtConfig): Authenticator {
  let key: Uint8Array | JWTVerifyGetKey;
  let algorithms: string[];
  if (config.secret !== undefined) {
    key = new TextEncoder().encode(config.secret);
    algorithms = ['HS256'];
  } else if (config.jwksUrl !== undefined) {
    // jose caches the keys and refetches for an unknown `kid` (a rotation), at most once per cooldown.
    key = createRemoteJWKSet(new URL(config.jwksUrl), config.jwksCooldownMs === undefined ? {} : { cooldownDuration: config.jwksCooldownMs });
    algorithms = ['RS256', 'ES256'];
  } else {
    throw new Error('jwt authentication needs a secret or a JWKS URL (config.ts checks this)');
  }
  const options: JWTVerifyOptions = {
    algorithms,
    requiredClaims: ['sub', 'exp'],
    clockTolerance: JWT_CLOCK_TOLERANCE_S,
    ...(config.issuer === undefined ? {} : { issuer: config.issuer }),
    ...(config.audience === undefined ? {} : { audience: config.audience }),
  };

  async function verifyToken(token: string): Promise<Identity> {
    if (token.length > MAX_TOKEN_CHARS) throw new AuthenticationError('UNAUTHORIZED', 'The token is too long.');
    if (!hasCanonicalSignature(token)) throw new AuthenticationError('UNAUTHORIZED', NOT_VALID);
    let payload: JWTPayload;
    try {
      // Two call shapes of one function: a key, or a key resolver.
      payload = (typeof key === 'function' ? await jwtVerify(token, key, options) : await jwtVerify(token, key, options)).payload;
    } catch (error) {
      throw refusal(error);
    }
    if ((payload.exp ?? 0) * 1000 <= Date.now()) throw new AuthenticationError('UNAUTHORIZED', 'The token has expired: sign in again.');
    const id = payload.sub;
    if (typeof id !== 'string' || id === '' || id.length > 256) throw new AuthenticationError('UNAUTHORIZED', 'The token\'s "sub" claim is not a usable user id.');
    return { id, name: displayName(payload, id), admin: isAdminByClaim(payload, config.adminClaim), expiresAt: (payload.exp ?? 0) * 1000 };
  }

  return {
    verifyToken,
    authenticate(source: CredentialSource): Promise<Identity> {
      if (source.bearer === undefined) {
        return Promise.reject(new AuthenticationError('UNAUTHORIZED', 'Sign in: send a token as "Authorization: Bearer <token>" or as ?token=<token>.'));
      }
      return verifyToken(source.bearer);
    },
  };
}
