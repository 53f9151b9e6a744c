import type { IncomingMessage } from 'node:http';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import type { WebSocket } from 'ws';
import { serverPerTest } from '../support/server-per-test.js';
import type { TestClient } from '../support/ws-client.js';

setFlagsFromString('--expose-gc');
/** A full collection, from a fresh context where `--expose-gc` has installed `gc`. */
const collectGarbage = runInNewContext('gc') as () => void;

const scope = serverPerTest();

async function settleAndCollect(): Promise<void> {
  // A WeakRef's target is kept until the job that last read it ends.
  for (let round = 0; round < 3; round++) {
    await new Promise<void>((resolve) => setImmediate(resolve));
    collectGarbage();
  }
}

describe('an idle connection', () => {
  it('keeps neither the upgrade request nor its response once the WebSocket is open', async () => {
    const server = await scope.start();
    const upgrades: WeakRef<IncomingMessage>[] = [];
    const sockets: WebSocket[] = [];
    server.app.websocketServer.on('connection', (socket: WebSocket, request: IncomingMessage) => {
      upgrades.push(new WeakRef(request));
      sockets.push(socket);
    });
    const clients: TestClient[] = [];
    for (let i = 0; i < 5; i++) clients.push(await scope.connect(server.wsUrl));
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
