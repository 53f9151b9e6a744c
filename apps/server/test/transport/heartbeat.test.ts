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

describe('heartbeat behind a blocked event loop', () => {
  /** Long enough that a loaded machine's scheduling hiccups stay under a beat and a half. */
  const HEARTBEAT_MS = 100;
  let server: RunningServer;
  beforeAll(async () => {
    server = await startServer({ heartbeatMs: HEARTBEAT_MS });
  });
  afterAll(() => server.close());

  it('keeps a peer that answers when the server itself was too busy to read its pong before the next beat', async () => {
    const healthy = await TestClient.connect(server.wsUrl);
    await healthy.waitForType('hello');
    // Right after a ping (answered at once), the event loop blocks over several beats, as in a long
    // fan-out: the pong waits unread behind the timers of the next beat.
    const blocked = new Promise<void>((resolve) => {
      healthy.socket.once('ping', () => {
        const until = performance.now() + 5 * HEARTBEAT_MS;
        while (performance.now() < until) {
          // busy
        }
        resolve();
      });
    });
    await blocked;
    await new Promise((resolve) => setTimeout(resolve, 4 * HEARTBEAT_MS));
    expect(healthy.closeInfo).toBeUndefined();
    const sessionId = await healthy.createSession('Still alive?');
    expect((await healthy.untilFinished(sessionId)).length).toBeGreaterThan(0);
    await healthy.close();
  });
});
