import type { SessionEvent } from '@interthought/protocol';
import { describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { liveEventFrame, storedFrame } from '../../src/core/fanout/frame.js';
import { BackpressureSender, CORK_MAX_BYTES, DEFAULT_BUFFER_CAPS } from '../../src/transport/backpressure-sender.js';
import { useSocketPairs } from '../support/socket-pair.js';

const socketPair = useSocketPairs();

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
    for (const frame of frames) sender.send(storedFrame(frame));
    await until(() => received.length === frames.length);
    expect(received).toEqual(frames);
  });

  it('sends a live event after the burst before it, never inside it', async () => {
    const { server, received } = await socketPair();
    const sender = new BackpressureSender(server, DEFAULT_BUFFER_CAPS);
    const burst = Array.from({ length: 300 }, (_, index) => `{"replayed":${index}}`);
    for (const frame of burst) sender.send(storedFrame(frame));
    const live = delta(301);
    sender.send(liveEventFrame(live, JSON.stringify(live)));
    sender.send(storedFrame('{"answer":true}'));
    await until(() => received.length === burst.length + 2);
    expect(received).toEqual([...burst, JSON.stringify(live), '{"answer":true}']);
  });

  it('holds nothing back once the code sending the burst has returned', async () => {
    const { server, received } = await socketPair();
    const sender = new BackpressureSender(server, DEFAULT_BUFFER_CAPS);
    sender.send(storedFrame('{"only":1}'));
    sender.send(storedFrame('{"only":2}'));
    await Promise.resolve();
    expect(server.bufferedAmount).toBe(0);
    await until(() => received.length === 2);
    expect(received).toEqual(['{"only":1}', '{"only":2}']);
  });

  it('counts live frames without an event (list changes) toward the hard cap, unlike a burst of the same size', async () => {
    // A burst budget above all 20 MiB sent, so only the hard cap can close (see the budget tests below).
    const caps = { softBytes: 4 * 1024, hardBytes: 64 * 1024, burstBytes: 64 * 1024 * 1024 };
    const frame = JSON.stringify({ type: 'sessions.changed', padding: 'x'.repeat(16 * 1024) });
    const outcome = async (live: boolean) => {
      const { server, client } = await socketPair();
      // The reader stops reading: what is sent piles up in the kernel, then in the sender.
      (client as unknown as { _socket: { pause(): void } })._socket.pause();
      let closed = false;
      const sender = new BackpressureSender(server, caps, () => (closed = true));
      // Far more than loopback kernel buffers hold, sent over several turns like real pushes.
      for (let turn = 0; turn < 40 && !closed; turn++) {
        for (let i = 0; i < 32; i++) sender.send(storedFrame(frame), live);
        await new Promise((resolve) => setTimeout(resolve, 1));
      }
      return closed;
    };
    expect(await outcome(true)).toBe(true);
    expect(await outcome(false)).toBe(false);
  });
});

describe('BackpressureSender: the burst budget', () => {
  const caps = { softBytes: 4 * 1024, hardBytes: 64 * 1024, burstBytes: 1024 * 1024 };
  /** A 256 KiB answer (a snapshot), as one frame. */
  const answer = JSON.stringify({ type: 'session.snapshot', padding: 'x'.repeat(256 * 1024) });

  it('closes with 4008 a reader that keeps asking without reading, holding at most the budget plus one answer', async () => {
    const { server, client } = await socketPair();
    (client as unknown as { _socket: { pause(): void } })._socket.pause();
    let closedWith: number | undefined;
    const sender = new BackpressureSender(server, caps, (buffered) => (closedWith = buffered));
    let peak = 0;
    let asked = 0;
    // 400 answers (100 MiB) if nothing stopped it: one per turn, like requests arriving.
    while (asked < 400 && closedWith === undefined) {
      sender.send(storedFrame(answer));
      asked += 1;
      peak = Math.max(peak, server.bufferedAmount);
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    expect(closedWith, 'closed as a slow consumer').toBeDefined();
    expect(server.readyState).toBe(WebSocket.CLOSING);
    expect(peak).toBeLessThanOrEqual(caps.burstBytes + 2 * answer.length);
    // Nothing more is taken in once it is closing.
    sender.send(storedFrame(answer));
    expect(server.bufferedAmount).toBeLessThanOrEqual(peak);
  });

  it('never closes a reader that takes each answer before asking again, however many it asks for', async () => {
    const { server, received } = await socketPair();
    let closed = false;
    const sender = new BackpressureSender(server, caps, () => (closed = true));
    for (let asked = 1; asked <= 40; asked++) {
      sender.send(storedFrame(answer));
      await until(() => received.length === asked);
    }
    expect(closed).toBe(false);
    expect(received.length * answer.length).toBeGreaterThan(8 * caps.burstBytes);
  });

  it('lets one burst far past the budget through to a reader that reads it', async () => {
    const { server, received } = await socketPair();
    let closed = false;
    const sender = new BackpressureSender(server, caps, () => (closed = true));
    const replay = Array.from({ length: 40 }, (_, index) => JSON.stringify({ index, padding: 'x'.repeat(128 * 1024) }));
    for (const frame of replay) sender.send(storedFrame(frame));
    // The answer to a request after the replay was read.
    await until(() => received.length === replay.length);
    sender.send(storedFrame('{"answer":true}'));
    await until(() => received.length === replay.length + 1);
    expect(closed).toBe(false);
    expect(received).toEqual([...replay, '{"answer":true}']);
  });
});
