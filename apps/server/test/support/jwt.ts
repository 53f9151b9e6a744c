import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SignJWT, exportJWK, generateKeyPair, type CryptoKey, type JWK, type JWTPayload } from 'jose';

/** An HS256 secret of the length config.ts requires. */
export const TEST_JWT_SECRET = 'test-secret-of-more-than-32-characters-0123456789';

export interface TokenOptions {
  /** Seconds from now; negative for an expired token. Default 60. */
  expiresInS?: number;
  /** Seconds from now for `nbf`. */
  notBeforeS?: number;
  issuer?: string;
  audience?: string;
}

function withTimes(payload: JWTPayload, options: TokenOptions): SignJWT {
  const now = Math.floor(Date.now() / 1000);
  const jwt = new SignJWT(payload).setIssuedAt(now).setExpirationTime(now + (options.expiresInS ?? 60));
  if (options.notBeforeS !== undefined) jwt.setNotBefore(now + options.notBeforeS);
  if (options.issuer !== undefined) jwt.setIssuer(options.issuer);
  if (options.audience !== undefined) jwt.setAudience(options.audience);
  return jwt;
}

/** An HS256 JWT signed with `secret`, as an identity provider sharing it would issue. */
export function signHs256(payload: JWTPayload, options: TokenOptions = {}, secret = TEST_JWT_SECRET): Promise<string> {
  return withTimes(payload, options).setProtectedHeader({ alg: 'HS256', typ: 'JWT' }).sign(new TextEncoder().encode(secret));
}

/** An unsigned token (`alg: none`), which every server must refuse. */
export function unsignedToken(payload: JWTPayload): string {
  const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const now = Math.floor(Date.now() / 1000);
  return `${part({ alg: 'none', typ: 'JWT' })}.${part({ exp: now + 60, iat: now, ...payload })}.`;
}

/** An RSA or EC signing key with its public JWK, named by `kid`. */
export interface SigningKey {
  kid: string;
  alg: 'RS256' | 'ES256';
  privateKey: CryptoKey;
  publicJwk: JWK;
}

export async function newSigningKey(kid: string, alg: 'RS256' | 'ES256' = 'RS256'): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg);
  return { kid, alg, privateKey, publicJwk: { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' } };
}

export function signWith(key: SigningKey, payload: JWTPayload, options: TokenOptions = {}): Promise<string> {
  return withTimes(payload, options).setProtectedHeader({ alg: key.alg, kid: key.kid, typ: 'JWT' }).sign(key.privateKey);
}

/** A local identity provider's JWKS endpoint whose keys a test can rotate. */
export interface JwksServer {
  url: string;
  /** How many times the key set was fetched. */
  readonly fetches: number;
  /** How long the next answers wait (a slow identity provider). */
  delayMs: number;
  publish(keys: SigningKey[]): void;
  close(): Promise<void>;
}

export async function startJwksServer(keys: SigningKey[]): Promise<JwksServer> {
  let published = keys;
  let fetches = 0;
  const state = { delayMs: 0 };
  const server: Server = createServer((_request, response) => {
    fetches += 1;
    const body = JSON.stringify({ keys: published.map((key) => key.publicJwk) });
    const answer = (): void => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(body);
    };
    // At once unless delayed, so a test on a fake clock need not advance it for every fetch.
    if (state.delayMs === 0) answer();
    else setTimeout(answer, state.delayMs);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/.well-known/jwks.json`,
    get fetches() {
      return fetches;
    },
    get delayMs() {
      return state.delayMs;
    },
    set delayMs(value: number) {
      state.delayMs = value;
    },
    publish(next) {
      published = next;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
