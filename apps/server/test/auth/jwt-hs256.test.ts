import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JwtConfig } from '../../src/config/index.js';
import { TEST_JWT_SECRET, signHs256, unsignedToken } from '../support/jwt.js';
import { logSink } from '../support/log-sink.js';
import { recordPeers } from '../support/peer-users.js';
import { startServer, type RunningServer } from '../support/server.js';
import { TestClient } from '../support/ws-client.js';

const ISSUER = 'https://id.example';
const AUDIENCE = 'interthought';
const JWT: JwtConfig = { secret: TEST_JWT_SECRET, jwksUrl: undefined, issuer: ISSUER, audience: AUDIENCE, adminClaim: { claim: 'roles', value: 'admin' } };
const valid = { issuer: ISSUER, audience: AUDIENCE };
const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

describe('INTERTHOUGHT_AUTH=jwt with an HS256 secret, on a real server', () => {
  let server: RunningServer;
  let userOf: ReturnType<typeof recordPeers>;
  const logs = logSink();
  const tokensSent: string[] = [];

  async function token(payload: Record<string, unknown>, options: Parameters<typeof signHs256>[1] = valid, secret?: string): Promise<string> {
    const signed = await signHs256(payload, options, secret);
    tokensSent.push(signed);
    return signed;
  }

  async function expectRefused(bearer: string, reason: RegExp): Promise<void> {
    const rest = await fetch(`${server.baseUrl}/api/sessions`, { headers: { authorization: `Bearer ${bearer}` } });
    expect(rest.status).toBe(401);
    expect(rest.headers.get('www-authenticate')).toBe('Bearer');
    const body = (await rest.json()) as { code: string; message: string };
    expect(body.code).toBe('UNAUTHORIZED');
    expect(body.message).toMatch(reason);
    expect(body.message).not.toContain(bearer);
    await expect(TestClient.connect(`${server.wsUrl}?token=${bearer}`)).rejects.toThrow('Unexpected server response: 401');
  }

  beforeAll(async () => {
    server = await startServer({ identity: { mode: 'jwt', jwt: JWT }, logLevel: 'debug' }, { logger: { level: 'debug', stream: logs.stream } });
    userOf = recordPeers(server.app);
  });
  afterAll(() => server.close());

  it('lets a valid token in as ?token= and as a Bearer header, over WebSocket and REST', async () => {
    const bearer = await token({ sub: 'u-ada', name: 'Ada Lovelace' });
    const viaQuery = await TestClient.connect(`${server.wsUrl}?token=${bearer}`);
    const viaHeader = await TestClient.connect(server.wsUrl, { headers: { authorization: `Bearer ${bearer}` } });
    await Promise.all([viaQuery.waitForType('hello'), viaHeader.waitForType('hello')]);
    expect(await userOf(viaQuery)).toEqual({ id: 'u-ada', name: 'Ada Lovelace', admin: false, expiresAt: expect.any(Number) });
    expect(await userOf(viaHeader)).toMatchObject({ id: 'u-ada' });
    const rest = await fetch(`${server.baseUrl}/api/agents`, { headers: { authorization: `Bearer ${bearer}` } });
    expect(rest.status).toBe(200);
    expect((await fetch(`${server.baseUrl}/api/sessions?token=${bearer}`)).status).toBe(200);
    await Promise.all([viaQuery.close(), viaHeader.close()]);
  });

  it('names the user by name, preferred_username or email, else by the id', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ sub: 'u1', preferred_username: 'grace', email: 'grace@example.com' }, 'grace'],
      [{ sub: 'u2', email: 'alan@example.com' }, 'alan@example.com'],
      [{ sub: 'u3' }, 'u3'],
    ];
    for (const [payload, name] of cases) {
      const client = await TestClient.connect(`${server.wsUrl}?token=${await token(payload)}`);
      expect(await userOf(client)).toMatchObject({ id: payload.sub, name });
      await client.close();
    }
  });

  it('makes an admin of a user whose roles claim contains admin, and of nobody else', async () => {
    const cases: [unknown, boolean][] = [[['viewer', 'admin'], true], ['admin', true], [true, true], [['viewer'], false], ['true', false], [undefined, false]];
    for (const [roles, admin] of cases) {
      const client = await TestClient.connect(`${server.wsUrl}?token=${await token({ sub: 'u-role', roles })}`);
      expect(await userOf(client), JSON.stringify(roles)).toMatchObject({ admin });
      await client.close();
    }
  });

  it('refuses a request without a token, and keeps /api/health public', async () => {
    expect((await fetch(`${server.baseUrl}/api/sessions`)).status).toBe(401);
    await expect(TestClient.connect(server.wsUrl)).rejects.toThrow('Unexpected server response: 401');
    expect((await fetch(`${server.baseUrl}/api/health`)).status).toBe(200);
  });

  it('refuses a forged signature', async () => {
    await expectRefused(await token({ sub: 'mallory' }, valid, 'another-secret-of-more-than-32-characters-xyz'), /signature/);
  });

  it('refuses a valid token whose signature is respelled, though it decodes to the same bytes', async () => {
    const signed = await token({ sub: 'u-ada' });
    expect((await fetch(`${server.baseUrl}/api/sessions`, { headers: { authorization: `Bearer ${signed}` } })).status).toBe(200);
    const signature = signed.slice(signed.lastIndexOf('.') + 1);
    // 32 bytes in 43 characters: the last one's low 2 bits are padding, which a lenient decoder ignores.
    const last = BASE64URL.indexOf(signature.at(-1)!);
    const twin = `${signed.slice(0, -1)}${BASE64URL[last ^ 1]}`;
    expect(Buffer.from(twin.slice(twin.lastIndexOf('.') + 1), 'base64url')).toEqual(Buffer.from(signature, 'base64url'));
    tokensSent.push(twin);
    await expectRefused(twin, /signature/);
  });

  it('refuses alg none and an algorithm it was not configured for', async () => {
    const none = unsignedToken({ sub: 'mallory', iss: ISSUER, aud: AUDIENCE });
    tokensSent.push(none);
    await expectRefused(none, /algorithm|signature/);
    const { SignJWT } = await import('jose');
    const hs384 = await new SignJWT({ sub: 'mallory' })
      .setProtectedHeader({ alg: 'HS384' })
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setExpirationTime('1m')
      .sign(new TextEncoder().encode(TEST_JWT_SECRET));
    tokensSent.push(hs384);
    await expectRefused(hs384, /algorithm/);
  });

  it('refuses a wrong issuer and a wrong audience', async () => {
    await expectRefused(await token({ sub: 'u-ada' }, { issuer: 'https://evil.example', audience: AUDIENCE }), /"iss"/);
    await expectRefused(await token({ sub: 'u-ada' }, { issuer: ISSUER, audience: 'another-app' }), /"aud"/);
    await expectRefused(await token({ sub: 'u-ada' }, {}), /"iss"/);
  });

  it('refuses an expired token and one not valid yet', async () => {
    await expectRefused(await token({ sub: 'u-ada' }, { ...valid, expiresInS: -60 }), /expired/);
    await expectRefused(await token({ sub: 'u-ada' }, { ...valid, notBeforeS: 120 }), /not valid yet/);
  });

  it('refuses a token without a user id', async () => {
    await expectRefused(await token({ name: 'nobody' }), /"sub"/);
  });

  it('never writes a token to the log', async () => {
    // Traffic of its own, so it holds alone and in any order; what the other tests sent is checked too.
    const signedIn = await token({ sub: 'u-log' });
    const client = await TestClient.connect(`${server.wsUrl}?token=${signedIn}`);
    await client.waitForType('hello');
    await client.close();
    expect((await fetch(`${server.baseUrl}/api/sessions?token=${signedIn}`)).status).toBe(200);
    expect((await fetch(`${server.baseUrl}/api/sessions`, { headers: { authorization: `Bearer ${signedIn}` } })).status).toBe(200);
    const refused = [
      await token({ sub: 'u-log' }, { ...valid, expiresInS: -60 }),
      await token({ name: 'nobody' }),
      await token({ sub: 'u-log' }, { issuer: 'https://elsewhere.example', audience: AUDIENCE }),
      ...(await Promise.all(['m1', 'm2', 'm3', 'm4', 'm5', 'm6', 'm7', 'm8'].map((sub) => token({ sub }, valid, 'another-secret-of-more-than-32-characters-xyz')))),
    ];
    for (const bearer of refused) await expectRefused(bearer, /./);

    const text = logs.text();
    expect(text).toContain('[redacted]');
    expect(text).toContain('refused a sign-in');
    expect(tokensSent.length).toBeGreaterThan(10);
    for (const sent of tokensSent) {
      expect(text).not.toContain(sent);
      // Nor its signature alone, the part that makes it a credential.
      const signature = sent.split('.')[2];
      if (signature) expect(text).not.toContain(signature);
    }
  });
});
