import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, startServer, type RunningServer } from '../support/server.js';
import { startBystander, type Bystander } from '../support/session-stream.js';
import { TestClient } from '../support/ws-client.js';

const TOKEN = 'open-sesame-42';

/** Collects every log line the app writes. */
function logSink() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  return { lines, stream };
}

describe('token and origin checks on a real socket, while another client streams', () => {
  let server: RunningServer;
  let bystander: Bystander;
  const logs = logSink();

  beforeAll(async () => {
    server = await startServer({ token: TOKEN, logLevel: 'info' }, { logger: { level: 'info', stream: logs.stream } });
    bystander = await startBystander(`${server.wsUrl}?token=${TOKEN}`);
  });
  afterAll(() => server.close());

  it('refuses an upgrade without a token with 401', async () => {
    await expect(TestClient.connect(server.wsUrl)).rejects.toThrow('Unexpected server response: 401');
  });

  it('refuses a wrong token with 401, in the query or the header', async () => {
    await expect(TestClient.connect(`${server.wsUrl}?token=wrong-token-00`)).rejects.toThrow('Unexpected server response: 401');
    await expect(TestClient.connect(server.wsUrl, { headers: { authorization: 'Bearer wrong-token-00' } })).rejects.toThrow(
      'Unexpected server response: 401',
    );
  });

  it('accepts the token as ?token= and as a Bearer header', async () => {
    const viaQuery = await TestClient.connect(`${server.wsUrl}?token=${TOKEN}`);
    expect((await viaQuery.waitForType('hello')).type).toBe('hello');
    const viaHeader = await TestClient.connect(server.wsUrl, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect((await viaHeader.waitForType('hello')).type).toBe('hello');
    await Promise.all([viaQuery.close(), viaHeader.close()]);
  });

  it('refuses a page from a foreign origin with 403 even with the token', async () => {
    await expect(TestClient.connect(`${server.wsUrl}?token=${TOKEN}`, { origin: 'https://evil.example' })).rejects.toThrow(
      'Unexpected server response: 403',
    );
  });

  it('refuses a DNS-rebinding page whose name is both its Origin and the Host it sends', async () => {
    const port = new URL(server.baseUrl).port;
    const rebound = `evil.example:${port}`;
    await expect(
      TestClient.connect(`${server.wsUrl}?token=${TOKEN}`, { origin: `http://${rebound}`, headers: { host: rebound } }),
    ).rejects.toThrow('Unexpected server response: 403');
  });

  it('accepts pages from loopback origins and from the server\'s own origin', async () => {
    const local = await TestClient.connect(`${server.wsUrl}?token=${TOKEN}`, { origin: 'http://localhost:5173' });
    const same = await TestClient.connect(`${server.wsUrl}?token=${TOKEN}`, { origin: server.baseUrl });
    await Promise.all([local.waitForType('hello'), same.waitForType('hello')]);
    await Promise.all([local.close(), same.close()]);
  });

  it('guards every REST route but /api/health', async () => {
    const health = await fetch(`${server.baseUrl}/api/health`);
    expect(health.status).toBe(200);
    for (const path of ['/api/agents', '/api/sessions', `/api/sessions/${bystander.sessionId}`, '/api/protocol/schema.json']) {
      const refused = await fetch(`${server.baseUrl}${path}`);
      expect(refused.status).toBe(401);
      expect(await refused.json()).toMatchObject({ code: 'UNAUTHORIZED' });
    }
    const withHeader = await fetch(`${server.baseUrl}/api/agents`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(withHeader.status).toBe(200);
    const withQuery = await fetch(`${server.baseUrl}/api/sessions?limit=5&token=${TOKEN}`);
    expect(withQuery.status).toBe(200);
  });

  it('never disturbed the other client\'s stream', async () => {
    await bystander.finish();
  });

  it('never writes the token to the log', () => {
    const text = logs.lines.join('');
    expect(text).toContain('[redacted]');
    expect(text).not.toContain(TOKEN);
  });
});

describe('token check through injectWS', () => {
  it('refuses the upgrade without a token and accepts it with one', async () => {
    const app = await buildTestApp({ token: TOKEN });
    await expect(TestClient.inject(app)).rejects.toThrow('Unexpected server response: 401');
    const client = await TestClient.inject(app, '/ws', { headers: { authorization: `Bearer ${TOKEN}` } });
    expect((await client.waitForType('hello')).type).toBe('hello');
    await client.close();
    await app.close();
  });

  it('refuses a foreign origin with 403', async () => {
    const app = await buildTestApp({ allowedOrigins: ['https://app.example'] });
    await expect(TestClient.inject(app, '/ws', { headers: { origin: 'http://localhost:5173' } })).rejects.toThrow('Unexpected server response: 403');
    const client = await TestClient.inject(app, '/ws', { headers: { origin: 'https://app.example' } });
    expect((await client.waitForType('hello')).type).toBe('hello');
    await client.close();
    await app.close();
  });
});
