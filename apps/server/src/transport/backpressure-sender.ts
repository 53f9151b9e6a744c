import { EventEmitter } from 'node:events';
import type { SessionEvent } from '@interthought/protocol';
import { WebSocket } from 'ws';
import { CoalescingQueue } from './coalescing-queue.js';

/** Close code and reason for a client that cannot keep up (4000–4999 are the application's). */
export const SLOW_CONSUMER_CLOSE = { code: 4008, reason: 'slow consumer' } as const;

/** The per-connection send buffer limits, in bytes (see `Config.softBufferBytes` / `hardBufferBytes`). */
export interface BufferCaps {
  /** Above this `bufferedAmount`, deltas are coalesced in a queue instead of written. */
  softBytes: number;
  /** Above this many bytes of live events waiting (`bufferedAmount` plus the queue, less replay bursts), close with 4008. */
  hardBytes: number;
}

export const DEFAULT_BUFFER_CAPS: BufferCaps = { softBytes: 256 * 1024, hardBytes: 1024 * 1024 };

/**
 * How often a waiting queue looks at the socket again. 'drain' only fires after a write the socket
 * refused (its buffer past highWaterMark, 16 KiB), so a soft cap below that would wait forever.
 */
export const DRAIN_POLL_MS = 10;

/** The 4008 close frame waits behind everything buffered: a reader that does not take it within this is cut. */
export const SLOW_CONSUMER_CUT_MS = 10_000;

/** ws keeps the TCP socket in the undocumented `_socket`; without it the queue is flushed by polling only. */
function tcpSocketOf(socket: WebSocket): EventEmitter | undefined {
  const raw = (socket as unknown as { _socket?: unknown })._socket;
  return raw instanceof EventEmitter ? raw : undefined;
}

/**
 * Sends a connection's frames with backpressure. Below the soft cap a frame is one
 * `socket.send(string)`. Above it frames wait in a `CoalescingQueue` (a slow reader gets a step's
 * deltas merged, not one by one) that is flushed in order as the socket drains. Past the hard cap
 * the connection is closed with 4008: the client resumes with `afterSeq` and loses nothing.
 */
export class BackpressureSender {
  readonly #queue = new CoalescingQueue();
  readonly #tcp: EventEmitter | undefined;
  #waiting = false;
  #pollTimer: NodeJS.Timeout | undefined;
  #closedSlow = false;
  /**
   * Bytes of bounded bursts (replays, snapshots, answers: frames without a live event) still in
   * the buffers. They do not count toward the hard cap, which is about live events piling up
   * behind a reader that stopped; the allowance shrinks as the buffers drain.
   */
  #burstAllowance = 0;

  constructor(
    private readonly socket: WebSocket,
    private readonly caps: BufferCaps = DEFAULT_BUFFER_CAPS,
    private readonly onSlowConsumer?: (bufferedBytes: number) => void,
  ) {
    this.#tcp = tcpSocketOf(socket);
  }

  /** Send `frame` (the serialisation of `event`, when given), only to an open socket. Never throws. */
  send(frame: string, event?: SessionEvent): void {
    const socket = this.socket;
    if (socket.readyState !== WebSocket.OPEN) return;
    // What has drained can no longer be part of a burst still waiting.
    this.#burstAllowance = Math.min(this.#burstAllowance, socket.bufferedAmount + this.#queue.bytes);
    if (event === undefined) this.#burstAllowance += Buffer.byteLength(frame);
    // The hot path: nothing waits and the socket keeps up.
    if (this.#queue.isEmpty && socket.bufferedAmount < this.caps.softBytes) {
      socket.send(frame);
      return;
    }
    this.#queue.push(frame, event);
    const buffered = socket.bufferedAmount + this.#queue.bytes;
    if (buffered - this.#burstAllowance > this.caps.hardBytes) {
      this.#closeSlowConsumer(buffered);
      return;
    }
    this.#waitForDrain();
  }

  /** Stop waiting and drop what is queued (the connection closed). */
  dispose(): void {
    this.#stopWaiting();
    this.#queue.clear();
  }

  #waitForDrain(): void {
    if (this.#waiting) return;
    this.#waiting = true;
    this.#tcp?.once('drain', this.#resume);
    this.#pollTimer = setTimeout(this.#resume, DRAIN_POLL_MS).unref();
  }

  #stopWaiting(): void {
    if (!this.#waiting) return;
    this.#waiting = false;
    this.#tcp?.off('drain', this.#resume);
    clearTimeout(this.#pollTimer);
    this.#pollTimer = undefined;
  }

  /** The socket drained (or the poll came round): send queued frames, in order, while it keeps up. */
  readonly #resume = (): void => {
    this.#stopWaiting();
    const socket = this.socket;
    if (socket.readyState !== WebSocket.OPEN) {
      this.#queue.clear();
      return;
    }
    while (!this.#queue.isEmpty && socket.bufferedAmount < this.caps.softBytes) socket.send(this.#queue.shift()!);
    if (!this.#queue.isEmpty) this.#waitForDrain();
  };

  #closeSlowConsumer(bufferedBytes: number): void {
    if (this.#closedSlow) return;
    this.#closedSlow = true;
    this.dispose();
    const socket = this.socket;
    const cut = setTimeout(() => socket.terminate(), SLOW_CONSUMER_CUT_MS).unref();
    socket.once('close', () => clearTimeout(cut));
    socket.close(SLOW_CONSUMER_CLOSE.code, SLOW_CONSUMER_CLOSE.reason);
    try {
      this.onSlowConsumer?.(bufferedBytes);
    } catch {
      // Only a report (a log line): it must not turn into an exception in the core's fan-out.
    }
  }
}
