import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hostnameOf, isHostAllowed } from '../../src/access/access-policy.js';
import { buildTestApp, startServer, type RunningServer } from '../support/server.js';
import { TestClient } from '../support/ws-client.js';

const loopback = { serverIsLoopback: true, allowedHosts: undefined, allowedOrigins: undefined };

describe('isHostAllowed', () => {
  it('lets a loopback server answer only to names DNS cannot rebind', () => {
    for (const host of ['127.0.0.1:3000', 'localhost:3000', '[::1]:3000', 'LOCALHOST', '127.0.0.1', '192.168.1.20:3000', '[fe80::1]:80']) {
      expect(isHostAllowed(host, loopback)).toBe(true);
    }
    for (const host of ['evil.example:3000', 'localhost.evil.example', '127.0.0.1.nip.io:3000', 'intranet']) {
      expect(isHostAllowed(host, loopback)).toBe(false);
    }
  });

  it('adds the names it was told, and lets a server on another interface answer to any name unless told', () => {
    const told = { ...loopback, allowedHosts: ['thought.example.com'] };
    expect(isHostAllowed('thought.example.com:443', told)).toBe(true);
    expect(isHostAllowed('evil.example', told)).toBe(false);
    expect(isHostAllowed('anything.example', { ...loopback, serverIsLoopback: false })).toBe(true);
    expect(isHostAllowed('evil.example', { ...told, serverIsLoopback: false })).toBe(false);
  });

  it('lets a request without Host through (non-browser HTTP/1.0) and refuses one that is no host', () => {
    expect(isHostAllowed(undefined, loopback)).toBe(true);
    expect(isHostAllowed('a b/c', loopback)).toBe(false);
    expect(hostnameOf('[::1]:80')).toBe('[::1]');
  });
});

describe('one Host/Origin policy on every route of a loopback server', () => {
  let server: RunningServer;
  let sessionId: string;
  let port: string;
  beforeAll(async () => {
    server = await startServer({ tokenDelayMs: 0 });
    port = new URL(server.baseUrl).port;
    const client = await TestClient.connect(server.wsUrl);
    sessionId = await client.createSession('What is 2 + 2?');
    await client.untilFinished(sessionId);
    await client.close();
  });
  afterAll(() => server.close());

  const rebound = () => `evil.example:${port}`;

  it('refuses REST, static pages, unknown paths and health for a DNS-rebinding Host with 403, and deletes nothing', async () => {
    const requests: [string, string][] = [
      ['GET', '/api/sessions'],
      ['GET', `/api/sessions/${sessionId}`],
      ['DELETE', `/api/sessions/${sessionId}`],
      ['GET', '/api/agents'],
      ['GET', '/api/health'],
      ['GET', '/api/metrics'],
      ['GET', '/'],
      ['GET', '/sessions/abc'],
      ['GET', '/no/such/file.js'],
    ];
    for (const [method, url] of requests) {
      const response = await server.app.inject({ method: method as 'GET', url, headers: { host: rebound(), origin: `http://${rebound()}` } });
      expect(response.statusCode, `${method} ${url}`).toBe(403);
      expect(response.json()).toMatchObject({ code: 'FORBIDDEN' });
    }
    const still = await fetch(`${server.baseUrl}/api/sessions/${sessionId}`);
    expect(still.status).toBe(200);
  });

  it('refuses the WebSocket upgrade for a rebinding Host even without an Origin header', async () => {
    await expect(TestClient.connect(server.wsUrl, { headers: { host: rebound() } })).rejects.toThrow('Unexpected server response: 403');
  });

  it('refuses a foreign page calling REST with a loopback Host (its Origin gives it away)', async () => {
    const response = await fetch(`${server.baseUrl}/api/sessions/${sessionId}`, { method: 'DELETE', headers: { origin: 'https://evil.example' } });
    expect(response.status).toBe(403);
    expect((await fetch(`${server.baseUrl}/api/sessions/${sessionId}`)).status).toBe(200);
  });

  it('answers the server’s own origin and loopback names', async () => {
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`]) {
      const response = await server.app.inject({ url: '/api/sessions', headers: { host, origin: `http://${host}` } });
      expect(response.statusCode).toBe(200);
    }
    const viaFetch = await fetch(`${server.baseUrl}/api/sessions`, { headers: { origin: server.baseUrl } });
    expect(viaFetch.status).toBe(200);
  });

  it('counts each refusal in /api/metrics by reason', async () => {
    const metrics = await (await fetch(`${server.baseUrl}/api/metrics`)).text();
    expect(metrics).toMatch(/interthought_access_refusals_total\{reason="host"\} [1-9]/);
    expect(metrics).toMatch(/interthought_access_refusals_total\{reason="origin"\} [1-9]/);
  });
});

describe('a server told its names', () => {
  it('answers a name from INTERTHOUGHT_ALLOWED_HOSTS or ALLOWED_ORIGINS and no other', async () => {
    const app = await buildTestApp({ allowedHosts: ['thought.example.com'], allowedOrigins: ['https://ui.example.com'] });
    const named = await app.inject({ url: '/api/health', headers: { host: 'thought.example.com' } });
    const fromOrigin = await app.inject({ url: '/api/health', headers: { host: 'ui.example.com', origin: 'https://ui.example.com' } });
    const other = await app.inject({ url: '/api/health', headers: { host: 'evil.example' } });
    expect([named.statusCode, fromOrigin.statusCode, other.statusCode]).toEqual([200, 200, 403]);
    await app.close();
  });

  it('answers any name on a public interface without a list', async () => {
    const app = await buildTestApp({ host: '0.0.0.0' });
    expect((await app.inject({ url: '/api/health', headers: { host: 'thought.example.com' } })).statusCode).toBe(200);
    await app.close();
  });
});
