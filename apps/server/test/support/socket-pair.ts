import type { AddressInfo } from 'node:net';
import { afterEach } from 'vitest';
import { WebSocket, WebSocketServer } from 'ws';

/** A real loopback WebSocket pair: the server side (to send through) and what the client receives. */
export interface SocketPair {
  server: WebSocket;
  client: WebSocket;
  received: string[];
}

/** Returns a maker of socket pairs; every pair made in a test is closed after it. */
export function useSocketPairs(): () => Promise<SocketPair> {
  const closers: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const close of closers.splice(0)) await close();
  });
  return async () => {
    const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
    await new Promise<void>((resolve) => wss.once('listening', () => resolve()));
    const { port } = wss.address() as AddressInfo;
    const accepted = new Promise<WebSocket>((resolve) => wss.once('connection', resolve));
    const client = new WebSocket(`ws://127.0.0.1:${port}`);
    const received: string[] = [];
    client.on('message', (data: Buffer) => received.push(data.toString('utf8')));
    await new Promise<void>((resolve) => client.once('open', () => resolve()));
    const server = await accepted;
    closers.push(async () => {
      client.terminate();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
    });
    return { server, client, received };
  };
}
