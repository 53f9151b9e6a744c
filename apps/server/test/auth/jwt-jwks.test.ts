import { TOKEN_EXPIRED_CLOSE } from '@interthought/protocol';
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { JwtConfig } from '../../src/config/index.js';
import { newSigningKey, signHs256, signWith, startJwksServer, type JwksServer, type SigningKey } from '../support/jwt.js';
import { recordPeers } from '../support/peer-users.js';
import { startServer, type RunningServer } from '../support/server.js';
import { untilReally, useTokenClock } from '../support/token-clock.js';
import { TestClient } from '../support/ws-client.js';

describe('INTERTHOUGHT_AUTH=jwt with keys from a JWKS URL', () => {
  let jwks: JwksServer;
  let server: RunningServer;
  let userOf: ReturnType<typeof recordPeers>;
  let first: SigningKey;

  async function restStatus(bearer: string): Promise<number> {
    return (await fetch(`${server.baseUrl}/api/sessions`, { headers: { authorization: `Bearer ${bearer}` } })).status;
  }

  beforeAll(async () => {
    first = await newSigningKey('key-2026-01');
  });
  // A key set and a server of each test's own: what a test publishes and fetches is its alone.
  beforeEach(async () => {
    jwks = await startJwksServer([first]);
    // No cooldown, so the rotation below need not wait jose's 30 s between fetches.
    const jwt: JwtConfig = { secret: undefined, jwksUrl: jwks.url, issuer: undefined, audience: undefined, adminClaim: { claim: 'is_admin', value: 'admin' }, jwksCooldownMs: 0 };
    server = await startServer({ identity: { mode: 'jwt', jwt } });
    userOf = recordPeers(server.app);
  });
  afterEach(async () => {
    await server.close();
    await jwks.close();
  });

  it('accepts an RS256 token signed by a published key, fetching the key set once', async () => {
    const client = await TestClient.connect(`${server.wsUrl}?token=${await signWith(first, { sub: 'u-rsa', name: 'Rosa', is_admin: true })}`);
    expect(await userOf(client)).toMatchObject({ id: 'u-rsa', name: 'Rosa', admin: true });
    await client.close();
    expect(await restStatus(await signWith(first, { sub: 'u-rsa' }))).toBe(200);
    expect(jwks.fetches).toBe(1);
  });

  it('accepts a token of a key published after a rotation, refetching for its unknown kid', async () => {
    const rotated = await newSigningKey('key-2026-02', 'ES256');
    const early = await signWith(rotated, { sub: 'u-ec' });
    expect(await restStatus(early)).toBe(401);
    jwks.publish([rotated]);
    const fetchesBefore = jwks.fetches;
    const client = await TestClient.connect(`${server.wsUrl}?token=${await signWith(rotated, { sub: 'u-ec' })}`);
    expect(await userOf(client)).toMatchObject({ id: 'u-ec', admin: false });
    await client.close();
    expect(jwks.fetches).toBe(fetchesBefore + 1);
  });

  it('refuses a key the set does not hold, and an HS256 token forged with the public key as its secret', async () => {
    const stranger = await newSigningKey('key-2026-02');
    expect(await restStatus(await signWith(stranger, { sub: 'mallory' }))).toBe(401);
    const publicKeyAsSecret = JSON.stringify(first.publicJwk);
    expect(await restStatus(await signHs256({ sub: 'mallory' }, {}, publicKeyAsSecret))).toBe(401);
  });

  it('refuses an expired RS256 token', async () => {
    jwks.publish([first]);
    expect(await restStatus(await signWith(first, { sub: 'u-rsa' }, { expiresInS: -60 }))).toBe(401);
    expect(await restStatus(await signWith(first, { sub: 'u-rsa' }))).toBe(200);
  });
});

describe('a refresh whose keys arrive after the old token expired', () => {
  afterEach(() => vi.useRealTimers());

  it('keeps the connection: the expiry waits for the refresh being verified', async () => {
    const first = await newSigningKey('key-a');
    const jwks = await startJwksServer([first]);
    const jwt: JwtConfig = { secret: undefined, jwksUrl: jwks.url, issuer: undefined, audience: undefined, adminClaim: undefined, jwksCooldownMs: 0 };
    const server = await startServer({ identity: { mode: 'jwt', jwt } });
    // Keys and tokens are made before the clock is faked and the connection opened: the refresh must
    // be sent while the first token (exp in 2 s of that clock) still lives.
    const rotated = await newSigningKey('key-b');
    const refreshed = await signWith(rotated, { sub: 'u-ada' }, { expiresInS: 60 });
    useTokenClock();
    const client = await TestClient.connect(`${server.wsUrl}?token=${await signWith(first, { sub: 'u-ada' }, { expiresInS: 2 })}`);
    await client.waitForType('hello');
    // A token of a new key: verifying it fetches the key set, which now takes longer than the old token has left.
    jwks.publish([first, rotated]);
    jwks.delayMs = 2_500;
    const fetchesBefore = jwks.fetches;
    const id = client.send({ type: 'auth.refresh', token: refreshed });
    await untilReally(() => jwks.fetches > fetchesBefore, 'the key set to be fetched for the refresh');
    await vi.advanceTimersByTimeAsync(2_500);
    expect(await client.answerTo(id)).toMatchObject({ type: 'auth.refreshed' });
    await vi.advanceTimersByTimeAsync(300);
    // A round trip after the old expiry: a close sent at it would have arrived first.
    await Promise.race([client.closed, client.answerTo(client.send({ type: 'sessions.watch' }))]);
    expect(client.closeInfo).toBeUndefined();
    await client.close();
    vi.useRealTimers();
    await server.close();
    await jwks.close();
  });

  it('closes with 4401 once a refresh that outlived the expiry is refused', async () => {
    const first = await newSigningKey('key-a');
    const jwks = await startJwksServer([first]);
    const jwt: JwtConfig = { secret: undefined, jwksUrl: jwks.url, issuer: undefined, audience: undefined, adminClaim: undefined, jwksCooldownMs: 0 };
    const server = await startServer({ identity: { mode: 'jwt', jwt } });
    const stranger = await newSigningKey('key-unknown');
    const forged = await signWith(stranger, { sub: 'u-ada' }, { expiresInS: 60 });
    useTokenClock();
    const client = await TestClient.connect(`${server.wsUrl}?token=${await signWith(first, { sub: 'u-ada' }, { expiresInS: 2 })}`);
    await client.waitForType('hello');
    jwks.delayMs = 2_500;
    const fetchesBefore = jwks.fetches;
    const id = client.send({ type: 'auth.refresh', token: forged });
    await untilReally(() => jwks.fetches > fetchesBefore, 'the key set to be fetched for the refresh');
    await vi.advanceTimersByTimeAsync(2_500);
    expect(await client.answerTo(id)).toMatchObject({ type: 'error', code: 'UNAUTHORIZED' });
    // Past its expiry, the old sign-in closes at once (on the next millisecond's timers).
    await vi.advanceTimersByTimeAsync(1);
    expect((await client.closed).code).toBe(TOKEN_EXPIRED_CLOSE.code);
    vi.useRealTimers();
    await server.close();
    await jwks.close();
  });
});

describe('an identity provider that cannot be reached', () => {
  it('answers 503 INTERNAL, not 401: the client did nothing wrong', async () => {
    const key = await newSigningKey('key-a');
    const jwks = await startJwksServer([key]);
    const url = jwks.url;
    await jwks.close();
    const jwt: JwtConfig = { secret: undefined, jwksUrl: url, issuer: undefined, audience: undefined, adminClaim: undefined };
    const server = await startServer({ identity: { mode: 'jwt', jwt } });
    const response = await fetch(`${server.baseUrl}/api/sessions`, { headers: { authorization: `Bearer ${await signWith(key, { sub: 'u-ada' })}` } });
    expect(response.status).toBe(503);
    expect(await response.json()).toMatchObject({ code: 'INTERNAL' });
    await server.close();
  });
});
