import { describe, expect, it, vi } from 'vitest';
import { jwtExpiry } from '../src/client/token-refresh.js';
import { clientOf, useScriptedServer } from './support/clients.js';
import type { ScriptedServer } from './support/scripted-server.js';

let server: ScriptedServer;
useScriptedServer((started) => (server = started));

/** An unsigned JWT-shaped token for `sub` expiring `inMs` from now (the client never verifies). */
function jwt(sub: string, inMs: number): string {
  const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${part({ alg: 'HS256', typ: 'JWT' })}.${part({ sub, exp: (Date.now() + inMs) / 1000 })}.c2ln`;
}

describe('jwtExpiry', () => {
  it('reads exp from a JWT payload in base64url, as milliseconds', () => {
    const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
    // "ÿ?>" makes base64url characters (- and _) appear in the payload.
    expect(jwtExpiry(`${part({ alg: 'none' })}.${part({ exp: 1_796_040_000, name: 'ÿ?>ÿ?>' })}.`)).toBe(1_796_040_000_000);
  });

  it('gives undefined for a token that is not a JWT with a numeric exp', () => {
    for (const token of ['open-sesame-42', 'a.b.c', `x.${Buffer.from('{"exp":"soon"}').toString('base64url')}.y`, '']) {
      expect(jwtExpiry(token), token).toBeUndefined();
    }
  });
});

describe('InterthoughtClient refreshes its token', () => {
  it('sends the token function\'s newer JWT as auth.refresh shortly before the current one expires', async () => {
    server.capabilities = ['auth-refresh'];
    let token = jwt('u-ada', 1_000);
    const client = clientOf(server, { token: () => token, tokenRefreshLeadMs: 500 });
    await client.connect();
    const first = token;
    token = jwt('u-ada', 60_000);
    expect(server.requests('auth.refresh')).toEqual([]);
    await vi.waitFor(() => expect(server.requests('auth.refresh')).toHaveLength(1), { timeout: 1_500 });
    expect(server.requests('auth.refresh')[0]?.token).toBe(token);
    expect(server.requests('auth.refresh')[0]?.token).not.toBe(first);
    // The next refresh is due only shortly before the new token's expiry, a minute away.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(server.requests('auth.refresh')).toHaveLength(1);
    expect(server.connections).toHaveLength(1);
  });

  it('asks again while the token function has nothing newer, and sends it once it has', async () => {
    server.capabilities = ['auth-refresh'];
    let token = jwt('u-ada', 1_200);
    const client = clientOf(server, { token: () => token, tokenRefreshLeadMs: 1_000 });
    await client.connect();
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(server.requests('auth.refresh')).toEqual([]);
    token = jwt('u-ada', 60_000);
    await vi.waitFor(() => expect(server.requests('auth.refresh').map((frame) => frame.token)).toEqual([token]), { timeout: 1_500 });
  });

  it('sends nothing to a server that did not announce auth-refresh, or for a token that is not a JWT', async () => {
    let token = jwt('u-ada', 600);
    const client = clientOf(server, { token: () => token, tokenRefreshLeadMs: 500 });
    await client.connect();
    token = jwt('u-ada', 60_000);
    server.capabilities = ['auth-refresh'];
    let shared = 'open-sesame-42';
    const withSharedToken = clientOf(server, { token: () => shared, tokenRefreshLeadMs: 500 });
    await withSharedToken.connect();
    shared = 'open-sesame-43';
    await new Promise((resolve) => setTimeout(resolve, 800));
    expect(server.requests('auth.refresh')).toEqual([]);
  });

  it('refreshes the connection it has after a reconnect, with the token it reconnected with', async () => {
    server.capabilities = ['auth-refresh'];
    let token = jwt('u-ada', 60_000);
    const client = clientOf(server, { token: () => token, tokenRefreshLeadMs: 500 });
    await client.connect();
    token = jwt('u-ada', 900);
    server.dropAll();
    await vi.waitFor(() => expect(client.hello?.connectionId).toBe('conn_1'));
    expect(server.urls[1]).toContain(token);
    token = jwt('u-ada', 60_000);
    await vi.waitFor(() => expect(server.received.filter(({ frame }) => frame.type === 'auth.refresh').map(({ connection }) => connection)).toEqual([1]), { timeout: 1_500 });
  });
});
