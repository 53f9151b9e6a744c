// @vitest-environment node
import type { AddressInfo } from 'node:net';
import { InterthoughtClient, SHARE_ENDED_CLOSE, TOKEN_EXPIRED_CLOSE } from '@interthought/protocol';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { WebSocket, WebSocketServer } from 'ws';
import { AccessGate, TokenStore } from '$lib/access/index.js';
import { SocketLine, withShare, type ObservableSocketConstructor } from '$lib/app/socket-line.js';
import { testHello } from '../../support/app.js';

/** A WebSocket server that says hello, records every upgrade's URL, and can close all its sockets with a code. */
async function startServer() {
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await new Promise<void>((resolve) => wss.once('listening', () => resolve()));
  const upgrades: string[] = [];
  wss.on('connection', (socket, request) => {
    upgrades.push(request.url ?? '');
    socket.send(JSON.stringify(testHello()));
  });
  return {
    url: `ws://127.0.0.1:${(wss.address() as AddressInfo).port}/ws`,
    upgrades,
    closeAll: (code: number, reason: string) => wss.clients.forEach((socket) => socket.close(code, reason)),
    stop: () => new Promise<void>((resolve) => wss.close(() => resolve())),
  };
}

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function setUp(initialShare: string | undefined) {
  const server = await startServer();
  let share = initialShare;
  const closes: number[] = [];
  const line = new SocketLine({
    shares: { token: () => share, onChange: () => () => undefined },
    WebSocket: WebSocket as unknown as ObservableSocketConstructor,
  });
  line.onClose((code) => closes.push(code));
  const tokens = new TokenStore(null);
  tokens.set('jwt-1');
  const client = new InterthoughtClient({ url: server.url, WebSocket: line.WebSocket, token: () => tokens.token, backoff: { initialDelayMs: 5, maxDelayMs: 20 } });
  const gate = new AccessGate({ tokens, client, check: async () => ({ access: 'granted' }), presentedShare: () => share, socketCloses: line });
  gate.start();
  cleanups.push(() => server.stop(), () => client.close(), () => gate.stop());
  return { server, line, client, gate, closes, setShare: (next: string | undefined) => (share = next) };
}

describe('SocketLine', () => {
  it('adds ?share= after the client’s own parameters, encoded', () => {
    expect(withShare('ws://h/ws', undefined)).toBe('ws://h/ws');
    expect(withShare('ws://h/ws?token=t', 'a b')).toBe('ws://h/ws?token=t&share=a%20b');
  });

  it('presents the page’s share link on the socket, next to the token', async () => {
    const { server, client } = await setUp('sh-tok');
    await client.connect();
    expect(server.upgrades).toEqual(['/ws?token=jwt-1&share=sh-tok']);
  });

  it('stops for good on 4403 “share ended”, where the client alone would retry for ever', async () => {
    const { server, client, gate, closes } = await setUp('sh-tok');
    await client.connect();
    server.closeAll(SHARE_ENDED_CLOSE.code, SHARE_ENDED_CLOSE.reason);
    await vi.waitFor(() => expect(gate.problem).toBe('share-ended'));
    expect(closes).toEqual([4403]);
    expect(client.state).toBe('closed');
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(server.upgrades).toHaveLength(1);
  });

  it('stops with the sign-in expired on 4401, rather than reconnect with the old token', async () => {
    const { server, client, gate } = await setUp(undefined);
    await client.connect();
    server.closeAll(TOKEN_EXPIRED_CLOSE.code, TOKEN_EXPIRED_CLOSE.reason);
    await vi.waitFor(() => expect(gate.expired).toBe(true));
    expect(gate.problem).toBe('refused');
    expect(client.state).toBe('closed');
  });

  it('treats any other close as a drop the client recovers from', async () => {
    const { server, client, gate } = await setUp('sh-tok');
    await client.connect();
    server.closeAll(4000, 'restart');
    await vi.waitFor(() => expect(server.upgrades).toHaveLength(2));
    await vi.waitFor(() => expect(client.state).toBe('open'));
    expect(gate.problem).toBeNull();
  });

  it('reopens the socket without the link when the page leaves its session, and with it when it comes back', async () => {
    const { server, client, line, setShare } = await setUp('sh-tok');
    await client.connect();
    line.sync();
    // Still the same link: nothing to do.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(server.upgrades).toHaveLength(1);

    setShare(undefined);
    line.sync();
    await vi.waitFor(() => expect(server.upgrades).toEqual(['/ws?token=jwt-1&share=sh-tok', '/ws?token=jwt-1']));
    await vi.waitFor(() => expect(client.state).toBe('open'));

    setShare('sh-tok');
    line.sync();
    await vi.waitFor(() => expect(server.upgrades.at(-1)).toBe('/ws?token=jwt-1&share=sh-tok'));
  });
});
