import { nanoid } from 'nanoid';
import type { ServerMessage } from '@interthought/protocol';
import { WebSocket } from 'ws';
import type { Peer } from '../core/session-service.js';
import { ConnectionRateLimiter } from './rate-limiter.js';

/** One WebSocket client as the session core sees it (a `Peer`) plus its per-connection limits. */
export class Connection implements Peer {
  readonly id = `c_${nanoid(12)}`;
  /** Sessions this connection is subscribed to (counted against its cap). */
  readonly subscriptions = new Set<string>();
  /** Sessions this connection created (counted against its cap; never decreases). */
  sessionsCreated = 0;
  /** Cleared on each heartbeat ping, set again by the pong. */
  alive = true;
  readonly limiter: ConnectionRateLimiter;

  constructor(
    readonly socket: WebSocket,
    rate: { ratePerSec: number; burst: number },
  ) {
    this.limiter = new ConnectionRateLimiter(rate);
  }

  /** The hot path: the core's pre-serialised frame goes out as is, only to an open socket. */
  send(frame: string): void {
    if (this.socket.readyState === WebSocket.OPEN) this.socket.send(frame);
  }

  /** Serialise and send a frame this transport builds itself (answers, errors, hello). */
  sendMessage(message: ServerMessage): void {
    this.send(JSON.stringify(message));
  }

  get open(): boolean {
    return this.socket.readyState === WebSocket.OPEN;
  }
}
