import { nanoid } from 'nanoid';
import type { ServerMessage, SessionEvent } from '@interthought/protocol';
import { WebSocket } from 'ws';
import type { Peer } from '../core/session-service.js';
import { BackpressureSender, DEFAULT_BUFFER_CAPS, type BufferCaps } from './backpressure-sender.js';
import { ConnectionRateLimiter } from './rate-limiter.js';

/** How a connection treats a client that reads slower than its sessions stream. */
export interface BackpressureOptions {
  caps: BufferCaps;
  /** Told when the connection is closed with 4008 "slow consumer" (e.g. to log it). */
  onSlowConsumer?: (bufferedBytes: number) => void;
}

/** One WebSocket client as the session core sees it (a `Peer`) plus its per-connection limits. */
export class Connection implements Peer {
  readonly id = `c_${nanoid(12)}`;
  /** Sessions this connection created (counted against its cap; never decreases). */
  sessionsCreated = 0;
  /** The client's address key: whose quotas (connections, active sessions, run starts) this connection uses. */
  owner: string | undefined;
  readonly limiter: ConnectionRateLimiter;
  readonly #outbound: BackpressureSender;
  #subscriptions: Set<string> | undefined;

  constructor(
    readonly socket: WebSocket,
    rate: { ratePerSec: number; burst: number },
    backpressure: BackpressureOptions = { caps: DEFAULT_BUFFER_CAPS },
  ) {
    this.limiter = new ConnectionRateLimiter(rate);
    this.#outbound = new BackpressureSender(socket, backpressure.caps, backpressure.onSlowConsumer);
  }

  /** Sessions this connection is subscribed to (counted against its cap); made on first use, as many connections watch none. */
  get subscriptions(): Set<string> {
    return (this.#subscriptions ??= new Set());
  }

  /**
   * The hot path: the core's pre-serialised frame goes out as is, only to an open socket. A client
   * that falls behind gets its deltas coalesced, and is closed with 4008 past the hard cap.
   */
  send(frame: string, event?: SessionEvent): void {
    this.#outbound.send(frame, event);
  }

  /** A list change: live like an event (it counts toward the hard cap), but never coalesced. */
  sendLive(frame: string): void {
    this.#outbound.send(frame, undefined, true);
  }

  /** Serialise and send a frame this transport builds itself (answers, errors, hello). */
  sendMessage(message: ServerMessage): void {
    this.send(JSON.stringify(message));
  }

  /** The socket closed: drop what still waits for it. */
  dispose(): void {
    this.#outbound.dispose();
  }

  /** The core ended a subscription on its own (the session was deleted): it no longer counts against the cap. */
  forget(sessionId: string): void {
    this.#subscriptions?.delete(sessionId);
  }

  get open(): boolean {
    return this.socket.readyState === WebSocket.OPEN;
  }
}
