import { InterthoughtClient, TOKEN_EXPIRED_CLOSE, type ConnectionState } from '@interthought/protocol';
import WebSocket from 'ws';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { JwtConfig } from '../../src/config/index.js';
import { TEST_JWT_SECRET, signHs256 } from '../support/jwt.js';
import { recordPeers } from '../support/peer-users.js';
import { startServer, type RunningServer } from '../support/server.js';
import { untilReally, useTokenClock } from '../support/token-clock.js';
import { TestClient } from '../support/ws-client.js';

const JWT: JwtConfig = { secret: TEST_JWT_SECRET, jwksUrl: undefined, issuer: undefined, audience: undefined, adminClaim: { claim: 'roles', value: 'admin' } };

describe('a WebSocket does not outlive its token (INTERTHOUGHT_AUTH=jwt)', () => {
  let server: RunningServer;
  let userOf: ReturnType<typeof recordPeers>;

  beforeAll(async () => {
    server = await startServer({ identity: { mode: 'jwt', jwt: JWT } });
    userOf = recordPeers(server.app);
  });
  afterAll(() => server.close());
  beforeEach(useTokenClock);
  afterEach(() => vi.useRealTimers());

  /** A client whose token expires in two seconds. */
  async function shortLived(sub = 'u-ada'): Promise<TestClient> {
    const client = await TestClient.connect(`${server.wsUrl}?token=${await signHs256({ sub }, { expiresInS: 2 })}`);
    const hello = await client.waitForType('hello');
    expect(hello.capabilities).toContain('auth-refresh');
    return client;
  }

  it('closes the connection with 4401 "token expired" when its token expires', async () => {
    const client = await shortLived();
    const startedAt = Date.now();
    await vi.advanceTimersByTimeAsync(1_999);
    expect(await Promise.race([client.closed, userOf(client)])).toMatchObject({ id: 'u-ada' });
    await vi.advanceTimersByTimeAsync(1);
    expect(await client.closed).toEqual({ code: TOKEN_EXPIRED_CLOSE.code, reason: 'token expired' });
    expect(Date.now() - startedAt).toBeLessThan(3_000);
  });

  it('extends the connection when the client sends a newer token for the same user', async () => {
    const client = await shortLived();
    const fresh = await signHs256({ sub: 'u-ada', name: 'Ada', roles: ['admin'] }, { expiresInS: 120 });
    const id = client.send({ type: 'auth.refresh', token: fresh });
    const answer = await client.answerTo(id);
    expect(answer).toMatchObject({ type: 'auth.refreshed', requestId: id });
    const expiresAt = Date.parse((answer as { expiresAt: string }).expiresAt);
    expect(expiresAt).toBeGreaterThan(Date.now() + 100_000);
    // The refreshed claims are the connection's user from now on.
    expect(await userOf(client)).toMatchObject({ id: 'u-ada', name: 'Ada', admin: true });
    await vi.advanceTimersByTimeAsync(2_500);
    // A round trip after the old expiry: a close sent at it would have arrived first.
    await Promise.race([client.closed, userOf(client)]);
    expect(client.closeInfo).toBeUndefined();
    await client.close();
  });

  it('refuses a token for another user and keeps the old expiry', async () => {
    const client = await shortLived();
    const id = client.send({ type: 'auth.refresh', token: await signHs256({ sub: 'u-mallory' }, { expiresInS: 120 }) });
    expect(await client.answerTo(id)).toMatchObject({ type: 'error', code: 'FORBIDDEN', requestId: id });
    expect(await userOf(client)).toMatchObject({ id: 'u-ada' });
    await vi.advanceTimersByTimeAsync(2_000);
    expect((await client.closed).code).toBe(TOKEN_EXPIRED_CLOSE.code);
  });

  it('refuses an invalid token and keeps the old expiry', async () => {
    const client = await shortLived();
    const forged = await signHs256({ sub: 'u-ada' }, { expiresInS: 120 }, 'not-the-servers-secret-but-just-as-long-0000');
    const forgedId = client.send({ type: 'auth.refresh', token: forged });
    const refusal = await client.answerTo(forgedId);
    expect(refusal).toMatchObject({ type: 'error', code: 'UNAUTHORIZED' });
    expect(JSON.stringify(refusal)).not.toContain(forged);
    const expiredId = client.send({ type: 'auth.refresh', token: await signHs256({ sub: 'u-ada' }, { expiresInS: -60 }) });
    expect(await client.answerTo(expiredId)).toMatchObject({ type: 'error', code: 'UNAUTHORIZED', message: expect.stringMatching(/expired/) });
    await vi.advanceTimersByTimeAsync(2_000);
    expect((await client.closed).code).toBe(TOKEN_EXPIRED_CLOSE.code);
  });
});

describe('InterthoughtClient against the real server', () => {
  afterEach(() => vi.useRealTimers());

  it('stays on one connection past its first token\'s expiry by refreshing it', async () => {
    const server = await startServer({ identity: { mode: 'jwt', jwt: JWT } });
    useTokenClock();
    let token = await signHs256({ sub: 'u-ada' }, { expiresInS: 2 });
    const client = new InterthoughtClient({ url: server.wsUrl, WebSocket, token: () => token, tokenRefreshLeadMs: 1_000 });
    const states: ConnectionState[] = [];
    client.onStateChange((state) => states.push(state));
    const refreshed: string[] = [];
    client.onMessage((frame) => {
      if (frame.type === 'auth.refreshed') refreshed.push(frame.expiresAt);
    });
    await client.connect();
    token = await signHs256({ sub: 'u-ada' }, { expiresInS: 120 });
    // The refresh is due 1 s before the expiry; the server must have it before the expiry passes.
    await vi.advanceTimersByTimeAsync(1_000);
    await untilReally(() => refreshed.length > 0, 'auth.refreshed');
    await vi.advanceTimersByTimeAsync(1_600);
    expect(refreshed).toHaveLength(1);
    expect(states).toEqual(['connecting', 'open']);
    client.close();
    vi.useRealTimers();
    await server.close();
  });
});

describe('auth.refresh on a server whose sign-in does not expire', () => {
  it('is refused with INVALID_STATE and changes nothing', async () => {
    const server = await startServer({ token: 'open-sesame-42' });
    const client = await TestClient.connect(`${server.wsUrl}?token=open-sesame-42`);
    const id = client.send({ type: 'auth.refresh', token: 'open-sesame-42' });
    expect(await client.answerTo(id)).toMatchObject({ type: 'error', code: 'INVALID_STATE' });
    await client.close();
    await server.close();
  });
});
