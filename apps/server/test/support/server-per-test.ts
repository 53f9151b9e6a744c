import { afterEach } from 'vitest';
import type { AppOverrides } from '../../src/app.js';
import type { Config } from '../../src/config/index.js';
import { startServer, type RunningServer } from './server.js';
import { TestClient } from './ws-client.js';

export interface ServerPerTest {
  /** Start the real server (as `startServer`); it is closed after the test. */
  start(config?: Partial<Config>, overrides?: AppOverrides): Promise<RunningServer>;
  /** A client past its `hello`; it is terminated after the test. */
  connect(wsUrl: string): Promise<TestClient>;
}

/**
 * A server and clients that last one test. Clients are terminated rather than closed: a test may
 * leave one that never reads, and a polite close would wait on it.
 */
export function serverPerTest(): ServerPerTest {
  let server: RunningServer | undefined;
  const clients: TestClient[] = [];
  afterEach(async () => {
    for (const client of clients.splice(0)) client.terminate();
    await server?.close();
    server = undefined;
  });
  return {
    async start(config, overrides) {
      server = await startServer(config, overrides);
      return server;
    },
    async connect(wsUrl) {
      const client = await TestClient.connect(wsUrl);
      await client.waitForType('hello');
      clients.push(client);
      return client;
    },
  };
}
