import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JwtConfig } from '../../src/config.js';
import { newSigningKey, signHs256, signWith, startJwksServer, type JwksServer, type SigningKey } from '../support/jwt.js';
import { recordPeers } from '../support/peer-users.js';
import { startServer, type RunningServer } from '../support/server.js';
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
    jwks = await startJwksServer([first]);
    // No cooldown, so the rotation below need not wait jose's 30 s between fetches.
    const jwt: JwtConfig = { secret: undefined, jwksUrl: jwks.url, issuer: undefined, audience: undefined, adminClaim: { claim: 'is_admin', value: 'admin' }, jwksCooldownMs: 0 };
    server = await startServer({ identity: { mode: 'jwt', jwt } });
    userOf = recordPeers(server.app);
  });
  afterAll(async () => {
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
