import { afterEach, describe, expect, it } from 'vitest';
import { runningUrl, spawnServer, type ServerProcess } from '../support/server-process.js';
import { foldEvents } from '../support/session-stream.js';
import { TestClient } from '../support/ws-client.js';

describe('graceful shutdown of the real process', () => {
  let server: ServerProcess | undefined;
  afterEach(() => {
    if (server && server.child.exitCode === null) server.child.kill('SIGKILL');
  });

  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(`closes every WebSocket with 1001 on ${signal} and exits 0`, async () => {
      server = spawnServer({ PORT: '0', LOG_LEVEL: 'warn', INTERTHOUGHT_WEB_DIR: '/nonexistent-interthought-build' });
      const url = await runningUrl(server);
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const wsUrl = `${url.replace('http', 'ws')}/ws`;
      const streaming = await TestClient.connect(wsUrl);
      const idle = await TestClient.connect(wsUrl);
      await idle.waitForType('hello');
      const sessionId = await streaming.createSession('What is 99 * 99?', { options: { tokenDelayMs: 20 } });
      await streaming.waitForType('step.delta', (frame) => frame.sessionId === sessionId);

      server.child.kill(signal);
      const [closedStreaming, closedIdle] = await Promise.all([streaming.closed, idle.closed]);
      expect(closedStreaming).toEqual({ code: 1001, reason: 'server shutting down' });
      expect(closedIdle).toEqual({ code: 1001, reason: 'server shutting down' });
      expect(await server.exited).toBe(0);
      // Whatever was sent before the close arrived whole and in order.
      expect(() => foldEvents(sessionId, streaming.events(sessionId))).not.toThrow();
    });
  }
});
