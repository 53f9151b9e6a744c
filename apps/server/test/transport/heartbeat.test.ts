import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../support/server.js';
import { TestClient } from '../support/ws-client.js';

describe('heartbeat', () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startServer({ heartbeatMs: 40 });
  });
  afterAll(() => server.close());

  it('terminates a peer that stops answering pings, and keeps one that answers', async () => {
    const healthy = await TestClient.connect(server.wsUrl);
    const silent = await TestClient.connect(server.wsUrl, { autoPong: false });
    await Promise.all([healthy.waitForType('hello'), silent.waitForType('hello')]);
    const closed = await silent.closed;
    // Terminated without a close frame: the client sees an abnormal closure.
    expect(closed.code).toBe(1006);
    expect(healthy.closeInfo).toBeUndefined();
    const sessionId = await healthy.createSession('Still alive?');
    expect((await healthy.untilFinished(sessionId)).length).toBeGreaterThan(0);
    await healthy.close();
  });
});
