import type { Socket } from 'node:net';
import type { SessionEvent } from '@interthought/protocol';
import { describe, expect, it } from 'vitest';
import type { WebSocket } from 'ws';
import { liveEventFrame } from '../../src/core/fanout/frame.js';
import { BackpressureSender } from '../../src/transport/backpressure-sender.js';
import { useSocketPairs } from '../support/socket-pair.js';

const socketPair = useSocketPairs();

function delta(seq: number): SessionEvent {
  return { type: 'step.delta', sessionId: 's', seq, at: '2025-01-01T00:00:00.000Z', stepId: `step-${seq % 7}`, text: 'x'.repeat(200) };
}

function tcpOf(socket: WebSocket): Socket {
  return (socket as unknown as { _socket: Socket })._socket;
}

/** Counts `send` calls made on a socket whose TCP side had already failed a write. */
function countWritesAfterFailure(server: WebSocket): () => number {
  const tcp = tcpOf(server);
  const original = server.send.bind(server);
  let afterFailure = 0;
  server.send = ((...args: Parameters<WebSocket['send']>) => {
    if (tcp.destroyed || tcp.errored != null) afterFailure += 1;
    return original(...args);
  }) as WebSocket['send'];
  return () => afterFailure;
}

describe('BackpressureSender: a peer that is gone before ws knows it', () => {
  it('writes nothing into a socket whose write already failed, though ws still says OPEN', async () => {
    const { server } = await socketPair();
    const sender = new BackpressureSender(server, { softBytes: 16 * 1024, hardBytes: 1 << 30, burstBytes: 1 << 30 });
    const writesAfterFailure = countWritesAfterFailure(server);
    sender.send(liveEventFrame(delta(1), JSON.stringify(delta(1))));
    // What a failed write does (EPIPE after the peer reset): the TCP socket is errored and
    // destroyed at once, while ws learns of it only from the 'close' of a later tick.
    tcpOf(server).destroy(Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }));
    expect(server.readyState).toBe(server.OPEN);
    // The rest of this turn's fan-out reaches the connection: each write would fail, with a stack.
    for (let seq = 2; seq < 2_000; seq += 1) sender.send(liveEventFrame(delta(seq), JSON.stringify(delta(seq))));
    expect(writesAfterFailure()).toBe(0);
    await new Promise<void>((resolve) => server.once('close', () => resolve()));
  });
});
