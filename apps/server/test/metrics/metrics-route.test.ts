import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../support/server.js';
import { TestClient } from '../support/ws-client.js';

/** One sample's value from the text format, or undefined when the line is absent. */
function sample(text: string, line: string): number | undefined {
  const found = text.split('\n').find((candidate) => candidate.startsWith(`${line} `));
  return found === undefined ? undefined : Number(found.slice(line.length + 1));
}

describe('GET /api/metrics', () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(() => server.close());

  const metrics = async () => {
    const response = await fetch(`${server.baseUrl}/api/metrics`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    return response.text();
  };

  it('counts connections, requests by type, refusals by code, and what the store wrote', async () => {
    const before = await metrics();
    expect(sample(before, 'interthought_connections_open')).toBe(0);
    const client = await TestClient.connect(server.wsUrl);
    await client.waitForType('hello');
    const sessionId = await client.createSession('What is 6 * 7?');
    const events = await client.untilFinished(sessionId);
    client.sendRaw('not json');
    client.send({ type: 'session.pause', sessionId: 'nope' });
    await client.waitForType('error', (frame) => frame.code === 'SESSION_NOT_FOUND');

    const during = await metrics();
    expect(sample(during, 'interthought_connections_open')).toBe(1);
    expect(sample(during, 'interthought_connections_total')).toBe(1);
    expect(sample(during, 'interthought_requests_total{type="session.create"}')).toBe(1);
    expect(sample(during, 'interthought_requests_total{type="session.pause"}')).toBe(1);
    expect(sample(during, 'interthought_request_errors_total{code="BAD_JSON"}')).toBe(1);
    expect(sample(during, 'interthought_request_errors_total{code="SESSION_NOT_FOUND"}')).toBe(1);
    expect(sample(during, 'interthought_events_written_total')).toBeGreaterThanOrEqual(events.length);
    expect(sample(during, 'interthought_store_transactions_total')).toBeGreaterThan(0);
    expect(sample(during, 'interthought_commit_span_turn')).toBe(0);
    expect(sample(during, 'interthought_sessions_active')).toBe(0);
    expect(sample(during, 'process_resident_memory_bytes')).toBeGreaterThan(0);
    expect(during).toContain('# TYPE interthought_requests_total counter\n');

    await client.close();
    await expect.poll(async () => sample(await metrics(), 'interthought_connections_open')).toBe(0);
  });

  it('is behind the server token like the rest of /api (health is not)', async () => {
    const guarded = await startServer({ token: 'metrics-token' });
    try {
      expect((await fetch(`${guarded.baseUrl}/api/metrics`)).status).toBe(401);
      const allowed = await fetch(`${guarded.baseUrl}/api/metrics`, { headers: { authorization: 'Bearer metrics-token' } });
      expect(allowed.status).toBe(200);
      expect(await allowed.text()).toContain('interthought_connections_open 0');
      expect((await fetch(`${guarded.baseUrl}/api/health`)).status).toBe(200);
    } finally {
      await guarded.close();
    }
  });
});
