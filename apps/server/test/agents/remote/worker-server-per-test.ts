import { afterEach, beforeEach } from 'vitest';
import type { AgentWorker } from '@interthought/agent';
import { startServer, type RunningServer } from '../../support/server.js';
import { TestClient } from '../../support/ws-client.js';
import { TestWorker, WORKER_TOKEN } from './worker-client.js';

/*
 * The real server the remote-agent tests talk to (PROTOCOL.md Part II), fresh for each test, and
 * what a test opened on it, closed after the test so no socket outlives it.
 */

export interface RawWorkerServer {
  /** The server of the current test, started before it with the workers' token. */
  readonly server: RunningServer;
  /** Close these (raw workers, client sockets) after the test. */
  track(...sockets: Array<{ close(): void }>): void;
  /** A raw worker serving `agent`, and a client that created a session of it for `task` (tokens not delayed); both closed after the test. */
  workerSession(agent: string, task: string, options?: Record<string, unknown>): Promise<{ w: TestWorker; client: TestClient; sessionId: string }>;
}

/** A server that takes raw-ws workers (`TestWorker`), started before each test and closed after it. */
export function rawWorkerServerPerTest(): RawWorkerServer {
  let server: RunningServer | undefined;
  const open: Array<{ close(): void }> = [];
  beforeEach(async () => {
    server = await startServer({ agentTokens: [WORKER_TOKEN] });
  });
  afterEach(async () => {
    for (const socket of open.splice(0)) socket.close();
    await server?.close();
    server = undefined;
  });
  return {
    get server() {
      if (server === undefined) throw new Error('the server runs only during a test');
      return server;
    },
    track(...sockets) {
      open.push(...sockets);
    },
    async workerSession(agent, task, options = {}) {
      const w = await TestWorker.serving(this.server.baseUrl, agent);
      const client = await TestClient.connect(this.server.wsUrl);
      this.track(w, client.socket);
      const sessionId = await client.createSession(task, { agent, options: { tokenDelayMs: 0, ...options } });
      return { w, client, sessionId };
    },
  };
}

export interface SdkWorkerServer {
  /** The server the test started (a test may replace it, say to restart on the same port). */
  server: RunningServer | undefined;
  /** SDK workers to close after the test. */
  readonly workers: AgentWorker[];
  /** Clients to close after the test. */
  readonly clients: TestClient[];
}

/** A server each test starts itself for SDK workers (`connectWorker`): its clients, workers and server are closed after it. */
export function sdkWorkerServerPerTest(): SdkWorkerServer {
  const state: SdkWorkerServer = { server: undefined, workers: [], clients: [] };
  afterEach(async () => {
    for (const client of state.clients.splice(0)) await client.close();
    for (const worker of state.workers.splice(0)) await worker.close();
    await state.server?.close();
    state.server = undefined;
  });
  return state;
}
