import { createHmac, timingSafeEqual } from 'node:crypto';
import { SHARE_TOKEN_MAX, type ShareGrant, type ShareRole } from '@interthought/protocol';

/**
 * Share links' tokens (PROTOCOL.md §21.3): `<payload>.<signature>`, both base64url, the payload
 * the JSON of what the link grants and the signature its HMAC-SHA256 under the server's sharing
 * key. The signature makes a forged or altered link fail before anything is read from the store;
 * the session's log (its `shares`) then says whether the link was revoked.
 */
export class ShareTokens {
  readonly #key: Buffer;

  constructor(key: string | Buffer) {
    this.#key = typeof key === 'string' ? Buffer.from(key, 'utf8') : key;
  }

  sign(grant: ShareGrant): string {
    const claims: TokenClaims = { s: grant.sessionId, i: grant.shareId, r: grant.role };
    if (grant.expiresAt !== undefined) claims.e = Date.parse(grant.expiresAt);
    const payload = Buffer.from(JSON.stringify(claims), 'utf8').toString('base64url');
    return `${payload}.${this.#signature(payload)}`;
  }

  /** What a token grants, or undefined when it is not one this server signed (or is malformed). Expiry is the caller's. */
  read(token: string): ShareGrant | undefined {
    if (token.length > SHARE_TOKEN_MAX) return undefined;
    const dot = token.indexOf('.');
    if (dot <= 0 || dot !== token.lastIndexOf('.')) return undefined;
    const payload = token.slice(0, dot);
    // The strings, not the decoded bytes: base64url's last character carries padding bits, so
    // several spellings decode to one signature, and only the one this server writes is a link.
    const presented = Buffer.from(token.slice(dot + 1), 'utf8');
    const expected = Buffer.from(this.#signature(payload), 'utf8');
    if (presented.length !== expected.length || !timingSafeEqual(presented, expected)) return undefined;
    return grantOf(payload);
  }

  #signature(payload: string): string {
    return createHmac('sha256', this.#key).update(payload).digest('base64url');
  }
}

interface TokenClaims {
  s: string;
  i: string;
  r: ShareRole;
  e?: number;
}

function grantOf(payload: string): ShareGrant | undefined {
  let claims: Partial<TokenClaims>;
  try {
    claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Partial<TokenClaims>;
  } catch {
    return undefined;
  }
  const { s, i, r, e } = claims;
  if (typeof s !== 'string' || typeof i !== 'string' || (r !== 'viewer' && r !== 'editor')) return undefined;
  const grant: ShareGrant = { sessionId: s, shareId: i, role: r };
  if (typeof e === 'number' && Number.isFinite(e)) grant.expiresAt = new Date(e).toISOString();
  return grant;
}
