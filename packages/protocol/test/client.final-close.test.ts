import { describe, expect, it } from 'vitest';
import { SHARE_ENDED_CLOSE, TOKEN_EXPIRED_CLOSE } from '../src/index.js';
import { clientOf, useScriptedServer } from './support/clients.js';
import type { ScriptedServer } from './support/scripted-server.js';

let server: ScriptedServer;
useScriptedServer((started) => (server = started));

/** Far longer than the test backoff (5–40 ms): a retrying client would have come back by then. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 200));

describe('InterthoughtClient and closes that retrying cannot undo (PROTOCOL.md §17)', () => {
  it('stops for good when its share link ends (4403) and does not reconnect', async () => {
    const client = clientOf(server);
    await client.connect();
    server.connections[0]!.socket.close(SHARE_ENDED_CLOSE.code, SHARE_ENDED_CLOSE.reason);
    await expect.poll(() => client.state).toBe('closed');
    await settle();
    expect(server.connections).toHaveLength(1);
    // Requests fail at once instead of waiting for a connection that will not come back.
    await expect(client.createSession('t')).rejects.toThrow();
  });

  it('stops on 4401 with a fixed token, which would only expire again', async () => {
    const client = clientOf(server, { token: 'a-fixed-token' });
    await client.connect();
    server.connections[0]!.socket.close(TOKEN_EXPIRED_CLOSE.code, TOKEN_EXPIRED_CLOSE.reason);
    await expect.poll(() => client.state).toBe('closed');
    await settle();
    expect(server.connections).toHaveLength(1);
  });

  it('reconnects after 4401 when a token function can give a newer token', async () => {
    let issued = 0;
    const client = clientOf(server, { token: () => `token-${(issued += 1)}` });
    await client.connect();
    server.connections[0]!.socket.close(TOKEN_EXPIRED_CLOSE.code, TOKEN_EXPIRED_CLOSE.reason);
    await expect.poll(() => server.connections.length).toBe(2);
    await expect.poll(() => client.state).toBe('open');
    expect(issued).toBe(2);
  });
});
