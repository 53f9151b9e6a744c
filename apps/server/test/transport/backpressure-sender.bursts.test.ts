import type { AddressInfo } from 'node:net';
import type { SessionEvent } from '@interthought/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket, WebSocketServer } from 'ws';
import { BackpressureSender, CORK_MAX_BYTES, DEFAULT_BUFFER_CAPS } from '../../src/transport/backpressure-sender.js';

const closers: Array<() => Promise<void>> = [];

afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

/** A real loopback WebSocket pair: the server side (to send through) and what the client receives. */
async function socketPair(): Promise<{ server: WebSocket; client: WebSocket; received: string[] }> {
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
}

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise<void>((resolve) => setTimeout(resolve, 5));
}

function delta(seq: number): SessionEvent {
  return { type: 'step.delta', sessionId: 's', seq, at: '2025-01-01T00:00:00.000Z', stepId: 'st', text: `live ${seq}` };
}

describe('BackpressureSender: bursts', () => {
  it('delivers a replay burst many times the cork limit complete and in order', async () => {
    const { server, received } = await socketPair();
    const sender = new BackpressureSender(server, DEFAULT_BUFFER_CAPS);
    const frames = Array.from({ length: 5_000 }, (_, index) => `{"frame":${index},"pad":"${'x'.repeat(100)}"}`);
    expect(frames.join('').length).toBeGreaterThan(4 * CORK_MAX_BYTES);
    for (const frame of frames) sender.send(frame);
    await until(() => received.length === frames.length);
    expect(received).toEqual(frames);
  });

  it('sends a live event after the burst before it, never inside it', async () => {
    const { server, received } = await socketPair();
    const sender = new BackpressureSender(server, DEFAULT_BUFFER_CAPS);
    const burst = Array.from({ length: 300 }, (_, index) => `{"replayed":${index}}`);
    for (const frame of burst) sender.send(frame);
    const live = delta(301);
    sender.send(JSON.stringify(live), live);
    sender.send('{"answer":true}');
    await until(() => received.length === burst.length + 2);
    expect(received).toEqual([...burst, JSON.stringify(live), '{"answer":true}']);
  });

  it('holds nothing back once the code sending the burst has returned', async () => {
    const { server, received } = await socketPair();
    const sender = new BackpressureSender(server, DEFAULT_BUFFER_CAPS);
    sender.send('{"only":1}');
    sender.send('{"only":2}');
    await Promise.resolve();
    expect(server.bufferedAmount).toBe(0);
    await until(() => received.length === 2);
    expect(received).toEqual(['{"only":1}', '{"only":2}']);
  });

  it('counts live frames without an event (list changes) toward the hard cap, unlike a burst of the same size', async () => {
    const caps = { softBytes: 4 * 1024, hardBytes: 64 * 1024 };
    const frame = JSON.stringify({ type: 'sessions.changed', padding: 'x'.repeat(16 * 1024) });
    const outcome = async (live: boolean) => {
      const { server, client } = await socketPair();
      // The reader stops reading: what is sent piles up in the kernel, then in the sender.
      (client as unknown as { _socket: { pause(): void } })._socket.pause();
      let closed = false;
      const sender = new BackpressureSender(server, caps, () => (closed = true));
      // Far more than loopback kernel buffers hold, sent over several turns like real pushes.
      for (let turn = 0; turn < 40 && !closed; turn++) {
        for (let i = 0; i < 32; i++) sender.send(frame, undefined, live);
        await new Promise((resolve) => setTimeout(resolve, 1));
      }
      return closed;
    };
    expect(await outcome(true)).toBe(true);
    expect(await outcome(false)).toBe(false);
  });
});
