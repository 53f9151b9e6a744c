import { EventEmitter } from 'node:events';
import { WebSocket } from 'ws';
import type { Frame } from '../core/fanout/frame.js';
import { CoalescingQueue } from './coalescing-queue.js';

/** Close code and reason for a client that cannot keep up (4000–4999 are the application's). */
export const SLOW_CONSUMER_CLOSE = { code: 4008, reason: 'slow consumer' } as const;

/** The per-connection send buffer limits, in bytes (see `Config.softBufferBytes` / `hardBufferBytes` / `burstBudgetBytes`). */
export interface BufferCaps {
  /** Above this `bufferedAmount`, deltas are coalesced in a queue instead of written. */
  softBytes: number;
  /** Above this many bytes of live events waiting (`bufferedAmount` plus the queue, less replay bursts), close with 4008. */
  hardBytes: number;
  /**
   * Bytes of earlier bursts (answers, snapshots, replays) still waiting when a new one starts.
   * Past it the connection is closed with 4008: a client that asks again and again without
   * reading would otherwise grow the server by a snapshot per request. The burst being written
   * is never counted, so one replay of any size reaches a reader that reads it.
   */
  burstBytes: number;
}

export const DEFAULT_BUFFER_CAPS: BufferCaps = { softBytes: 256 * 1024, hardBytes: 1024 * 1024, burstBytes: 16 * 1024 * 1024 };

/**
 * How often a waiting queue looks at the socket again. 'drain' only fires after a write the socket
 * refused (its buffer past highWaterMark, 16 KiB), so a soft cap below that would wait forever.
 */
export const DRAIN_POLL_MS = 10;

/** The 4008 close frame waits behind everything buffered: a reader that does not take it within this is cut. */
export const SLOW_CONSUMER_CUT_MS = 10_000;

/**
 * Burst frames (a replay, a snapshot, answers: frames without a live event) sent in one
 * synchronous run are held in the corked socket until it ends, so a 100,000-event replay costs one
 * `writev` per batch instead of one per frame. Beyond this many bytes held they are written at
 * once: a batch stays far below the soft cap it counts toward, and below the iovec limit of one
 * `writev` for frames of ~80 bytes up.
 */
export const CORK_MAX_BYTES = 64 * 1024;

/** The TCP socket ws keeps in the undocumented `_socket`: 'drain' to resume, cork/uncork to batch. */
interface RawSocket extends EventEmitter {
  cork(): void;
  uncork(): void;
  /** Both set by the first write that failed (EPIPE, ECONNRESET), synchronously, before ws sees the socket close. */
  readonly destroyed: boolean;
  readonly errored: Error | null;
}

/** Without the raw socket, the queue is flushed by polling only and frames are written one by one. */
function tcpSocketOf(socket: WebSocket): RawSocket | undefined {
  const raw = (socket as unknown as { _socket?: unknown })._socket;
  if (!(raw instanceof EventEmitter)) return undefined;
  const candidate = raw as Partial<RawSocket> & EventEmitter;
  return typeof candidate.cork === 'function' && typeof candidate.uncork === 'function' ? (candidate as RawSocket) : undefined;
}

/**
 * Sends a connection's frames with backpressure. Below the soft cap a frame is one
 * `socket.send(string)`. Above it frames wait in a `CoalescingQueue` (a slow reader gets a step's
 * deltas merged, not one by one) that is flushed in order as the socket drains. Past the hard cap
 * the connection is closed with 4008: the client resumes with `afterSeq` and loses nothing.
 */
export class BackpressureSender {
  /** Frames waiting for the socket to drain; only while some do (most connections never fall behind). */
  #queue: CoalescingQueue | undefined;
  readonly #tcp: RawSocket | undefined;
  /** Burst frames are held in the corked socket until the current synchronous run ends (a microtask). */
  #corked = false;
  #waiting = false;
  #pollTimer: NodeJS.Timeout | undefined;
  /** The 'drain' listener and poll callback, made on the first wait (it must stay the same function to be removed). */
  #onDrain: (() => void) | undefined;
  #closedSlow = false;
  /**
   * Bytes of bounded bursts (replays, snapshots, answers: frames without a live event) still in
   * the buffers. They do not count toward the hard cap, which is about live events piling up
   * behind a reader that stopped; the allowance shrinks as the buffers drain. What earlier runs'
   * bursts leave in it counts toward `caps.burstBytes` instead.
   */
  #burstAllowance = 0;
  /** A burst is being written in the current synchronous run (one request's answer, or a few). */
  #inBurst = false;

  constructor(
    private readonly socket: WebSocket,
    private readonly caps: BufferCaps = DEFAULT_BUFFER_CAPS,
    private readonly onSlowConsumer?: (bufferedBytes: number) => void,
  ) {
    this.#tcp = tcpSocketOf(socket);
  }

  /**
   * Send `frame`'s text, only to an open socket: the one place a frame meets the socket. Never
   * throws. A frame that is not `live` is a bounded burst (an answer, a replay) unless `live` says
   * it is one of a stream that keeps coming (list changes): those count toward the hard cap like events.
   */
  send(frame: Frame, live = frame.live): void {
    const socket = this.socket;
    if (socket.readyState !== WebSocket.OPEN || this.#peerGone()) return;
    const queue = this.#queue;
    const queued = queue === undefined ? 0 : queue.bytes;
    // What has drained can no longer be part of a burst still waiting.
    this.#burstAllowance = Math.min(this.#burstAllowance, socket.bufferedAmount + queued);
    if (!live) {
      if (!this.#inBurst && !this.#startBurst()) return;
      this.#burstAllowance += Buffer.byteLength(frame.text);
    }
    // The hot path: nothing waits and the socket keeps up.
    if (queue === undefined && socket.bufferedAmount < this.caps.softBytes) {
      // Live events go out one by one, after any burst held before them: held across a fan-out,
      // a healthy reader's bufferedAmount was seen to climb to the hard cap (backpressure.test.ts,
      // 8 KiB soft cap), and at fixed rates a socket gets one or two per turn, where it saves nothing.
      if (!live) this.#holdWhileSmall(socket.bufferedAmount);
      else this.#uncork();
      socket.send(frame.text);
      return;
    }
    const waiting = (this.#queue ??= new CoalescingQueue());
    waiting.push(frame);
    const buffered = socket.bufferedAmount + waiting.bytes;
    if (buffered - this.#burstAllowance > this.caps.hardBytes) {
      this.#closeSlowConsumer(buffered);
      return;
    }
    this.#waitForDrain();
  }

  /**
   * A new synchronous run starts sending a burst: refused (and the connection closed with 4008)
   * while the earlier bursts the reader has not taken exceed the burst budget.
   */
  #startBurst(): boolean {
    if (this.#burstAllowance > this.caps.burstBytes) {
      this.#closeSlowConsumer(this.socket.bufferedAmount + (this.#queue?.bytes ?? 0));
      return false;
    }
    this.#inBurst = true;
    queueMicrotask(() => {
      this.#inBurst = false;
    });
    return true;
  }

  /** Stop waiting and drop what is queued (the connection closed). */
  dispose(): void {
    this.#uncork();
    this.#stopWaiting();
    this.#queue = undefined;
  }

  /**
   * Hold frames in the corked socket until the code sending them returns (a replay loop: a
   * microtask runs once it is done), or until `CORK_MAX_BYTES` are waiting:
   * then they go out in one `writev` and the next frames start a new batch. A socket already
   * holding that much is not corked again: its writes are queued by the stream anyway.
   */
  #holdWhileSmall(buffered: number): void {
    if (buffered >= CORK_MAX_BYTES) {
      this.#uncork();
      return;
    }
    if (this.#corked || this.#tcp === undefined) return;
    this.#corked = true;
    this.#tcp.cork();
    queueMicrotask(() => this.#uncork());
  }

  #uncork(): void {
    if (!this.#corked) return;
    this.#corked = false;
    this.#tcp?.uncork();
  }

  #waitForDrain(): void {
    if (this.#waiting) return;
    this.#waiting = true;
    const onDrain = (this.#onDrain ??= () => this.#resume());
    this.#tcp?.once('drain', onDrain);
    this.#pollTimer = setTimeout(onDrain, DRAIN_POLL_MS).unref();
  }

  #stopWaiting(): void {
    if (!this.#waiting) return;
    this.#waiting = false;
    if (this.#onDrain !== undefined) this.#tcp?.off('drain', this.#onDrain);
    clearTimeout(this.#pollTimer);
    this.#pollTimer = undefined;
  }

  /**
   * The peer is gone though ws still says OPEN: a write already failed, and ws learns of it only on
   * a later tick. Every write until then fails too, each at the cost of an error and its stack, so a
   * queue flushed into such a socket froze the event loop for seconds (`pnpm chaos`, client kills
   * behind a replay). Nothing more is written; the close that follows detaches the connection.
   */
  #peerGone(): boolean {
    const tcp = this.#tcp;
    return tcp !== undefined && (tcp.destroyed || tcp.errored != null);
  }

  /** The socket drained (or the poll came round): send queued frames, in order, while it keeps up. */
  #resume(): void {
    this.#stopWaiting();
    const socket = this.socket;
    const queue = this.#queue;
    if (queue === undefined) return;
    if (socket.readyState !== WebSocket.OPEN) {
      this.#queue = undefined;
      return;
    }
    while (!queue.isEmpty && socket.bufferedAmount < this.caps.softBytes && !this.#peerGone()) socket.send(queue.shift()!);
    if (queue.isEmpty || this.#peerGone()) this.#queue = undefined;
    else this.#waitForDrain();
  }

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
