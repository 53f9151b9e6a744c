import { afterEach, describe, expect, it } from 'vitest';
import type { ProxyConfig } from '../../src/config/index.js';
import { recordPeers } from '../support/peer-users.js';
import { startServer, type RunningServer } from '../support/server.js';
import { TestClient } from '../support/ws-client.js';

const HEADERS = { 'x-forwarded-user': 'ada', 'x-forwarded-email': 'ada@example.com' };

function proxy(trustedProxies: string[], names: Partial<ProxyConfig> = {}): ProxyConfig {
  return { userHeader: 'x-forwarded-user', emailHeader: 'x-forwarded-email', trustedProxies, admins: [], ...names };
}

describe('INTERTHOUGHT_AUTH=proxy', () => {
  let server: RunningServer | undefined;
  afterEach(() => server?.close());

  it('takes the user from the headers of a trusted proxy (the test connects from 127.0.0.1)', async () => {
    server = await startServer({ identity: { mode: 'proxy', proxy: proxy(['10.0.0.0/8', '127.0.0.0/8']) } });
    const userOf = recordPeers(server.app);
    const client = await TestClient.connect(server.wsUrl, { headers: HEADERS });
    expect(await userOf(client)).toEqual({ id: 'ada', name: 'ada', admin: false });
    await client.close();
    expect((await fetch(`${server.baseUrl}/api/sessions`, { headers: HEADERS })).status).toBe(200);
    const emailOnly = await TestClient.connect(server.wsUrl, { headers: { 'x-forwarded-email': 'grace@example.com' } });
    expect(await userOf(emailOnly)).toMatchObject({ id: 'grace@example.com' });
    await emailOnly.close();
  });

  it('makes admins of the users INTERTHOUGHT_PROXY_ADMINS names, by id or by email, and of nobody else', async () => {
    server = await startServer({ identity: { mode: 'proxy', proxy: proxy(['127.0.0.0/8'], { admins: ['root', 'grace@example.com'] }) } });
    const userOf = recordPeers(server.app);
    const cases: [Record<string, string>, boolean][] = [
      [{ 'x-forwarded-user': 'Root' }, true],
      [{ 'x-forwarded-user': 'grace', 'x-forwarded-email': 'Grace@Example.com' }, true],
      [HEADERS, false],
    ];
    for (const [headers, admin] of cases) {
      const client = await TestClient.connect(server.wsUrl, { headers });
      expect(await userOf(client)).toMatchObject({ admin });
      await client.close();
    }
  });

  it('reads the header names it is configured with', async () => {
    server = await startServer({ identity: { mode: 'proxy', proxy: proxy(['127.0.0.1'], { userHeader: 'x-auth-request-user' }) } });
    expect((await fetch(`${server.baseUrl}/api/sessions`, { headers: { 'x-auth-request-user': 'ada' } })).status).toBe(200);
    expect((await fetch(`${server.baseUrl}/api/sessions`, { headers: { 'x-forwarded-user': 'ada' } })).status).toBe(401);
  });

  it('ignores the headers from an address that is not a trusted proxy: 401', async () => {
    server = await startServer({ identity: { mode: 'proxy', proxy: proxy(['10.0.0.0/8', '192.0.2.7']) } });
    const rest = await fetch(`${server.baseUrl}/api/sessions`, { headers: HEADERS });
    expect(rest.status).toBe(401);
    expect(await rest.json()).toMatchObject({ code: 'UNAUTHORIZED' });
    await expect(TestClient.connect(server.wsUrl, { headers: HEADERS })).rejects.toThrow('Unexpected server response: 401');
  });

  it('refuses a trusted proxy\'s request that names nobody', async () => {
    server = await startServer({ identity: { mode: 'proxy', proxy: proxy(['127.0.0.1']) } });
    expect((await fetch(`${server.baseUrl}/api/sessions`)).status).toBe(401);
    expect((await fetch(`${server.baseUrl}/api/sessions`, { headers: { 'x-forwarded-user': '  ' } })).status).toBe(401);
  });
});
