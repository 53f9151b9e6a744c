import type { IncomingMessage } from 'node:http';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterEach, describe, expect, it } from 'vitest';
import type { WebSocket } from 'ws';
import { startServer, type RunningServer } from '../support/server.js';
import { TestClient } from '../support/ws-client.js';

setFlagsFromString('--expose-gc');
/** A full collection, from a fresh context where `--expose-gc` has installed `gc`. */
const collectGarbage = runInNewContext('gc') as () => void;

let server: RunningServer | undefined;
const clients: TestClient[] = [];

afterEach(async () => {
  for (const client of clients.splice(0)) client.terminate();
  await server?.close();
  server = undefined;
});

async function settleAndCollect(): Promise<void> {
  // A WeakRef's target is kept until the job that last read it ends.
  for (let round = 0; round < 3; round++) {
    await new Promise<void>((resolve) => setImmediate(resolve));
    collectGarbage();
  }
}

describe('an idle connection', () => {
  it('keeps neither the upgrade request nor its response once the WebSocket is open', async () => {
    server = await startServer();
    const upgrades: WeakRef<IncomingMessage>[] = [];
    const sockets: WebSocket[] = [];
    server.app.websocketServer.on('connection', (socket: WebSocket, request: IncomingMessage) => {
      upgrades.push(new WeakRef(request));
      sockets.push(socket);
    });
    for (let i = 0; i < 5; i++) {
      const client = await TestClient.connect(server.wsUrl);
      await client.waitForType('hello');
      clients.push(client);
    }
    await settleAndCollect();

    expect(upgrades).toHaveLength(5);
    expect(upgrades.filter((ref) => ref.deref() !== undefined)).toHaveLength(0);
    for (const socket of sockets) {
      expect((socket as unknown as { _socket: { _httpMessage: unknown } })._socket._httpMessage).toBeNull();
      expect(socket.listenerCount('error')).toBe(1);
    }
    // Still a working connection.
    const sessionId = await clients[0]!.createSession('Still answered?');
    expect((await clients[0]!.untilFinished(sessionId)).length).toBeGreaterThan(0);
  });
});
