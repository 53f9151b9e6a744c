import { nanoid } from 'nanoid';
import { SHARE_ENDED_CLOSE, TOKEN_EXPIRED_CLOSE, type ServerMessage, type ShareGrant } from '@interthought/protocol';
import { WebSocket } from 'ws';
import type { Identity } from '../auth/identity.js';
import { frameOf, type Frame } from '../core/fanout/frame.js';
import type { Peer } from '../core/fanout/peer.js';
import type { Quota } from '../core/commands/quota.js';
import { BackpressureSender, DEFAULT_BUFFER_CAPS, type BufferCaps } from './backpressure-sender.js';
import { ConnectionRateLimiter } from './rate-limiter.js';

/** How a connection treats a client that reads slower than its sessions stream. */
export interface BackpressureOptions {
  caps: BufferCaps;
  /** Told when a connection is closed with 4008 "slow consumer" (e.g. to log it): one function serves every connection. */
  onSlowConsumer?: (connectionId: string, bufferedBytes: number) => void;
}

/** Everything a connection is opened with, known once the upgrade has been accepted. */
export interface ConnectionOptions {
  rate: { ratePerSec: number; burst: number };
  backpressure?: BackpressureOptions;
  /** Whose quotas (active sessions, run starts) this connection uses: its user's, else its address's. */
  quota: Quota | undefined;
  /** The signed-in user from the upgrade (its token's expiry closes the connection); undefined with `none` or `token`. */
  user: Identity | undefined;
  /** The share link the upgrade presented (its expiry closes the connection), if any. */
  share: ShareGrant | undefined;
  /** Where the links this connection makes point (the server's public address). */
  baseUrl: string;
}

/** The longest delay `setTimeout` keeps (2^31 - 1 ms); a longer one fires at once. */
const MAX_TIMER_MS = 2_147_483_647;

/** One WebSocket client as the session core sees it (a `Peer`) plus its per-connection limits. */
export class Connection implements Peer {
  readonly id = `c_${nanoid(12)}`;
  /** Whose quotas (active sessions, run starts) this connection uses: its user's, else its address's. */
  readonly quota: Quota | undefined;
  /** The share link the connection was opened with (PROTOCOL.md §21.3): it ends with the link. */
  readonly share: ShareGrant | undefined;
  /** Where the links this connection makes point (the server's public address). */
  readonly baseUrl: string;
  readonly limiter: ConnectionRateLimiter;
  readonly #outbound: BackpressureSender;
  /** The signed-in user (INTERTHOUGHT_AUTH `jwt` or `proxy`); an `auth.refresh` renews it, never for another user. */
  #user: Identity | undefined;
  /** Sessions this connection created (counted against its cap; a refused creation gives its count back). */
  #sessionsCreated = 0;
  #closing = false;
  /** Settles when the requests carried out or waiting have all been; undefined while none is. */
  #turn: Promise<void> | undefined;
  #waiting = 0;
  /** Closes the connection when its sign-in expires (INTERTHOUGHT_AUTH=jwt); unset otherwise. */
  #expiry: NodeJS.Timeout | undefined;
  /** Closes the connection when its share link expires; unset otherwise. */
  #shareExpiry: NodeJS.Timeout | undefined;
  /**
   * An `auth.refresh` is being verified: an expiry due meanwhile waits for its outcome (the
   * refresh re-arms the deadline either way), so a token renewed just in time is not cut off.
   */
  #refreshing = false;

  constructor(
    readonly socket: WebSocket,
    options: ConnectionOptions,
  ) {
    const { caps, onSlowConsumer } = options.backpressure ?? { caps: DEFAULT_BUFFER_CAPS };
    this.limiter = new ConnectionRateLimiter(options.rate);
    this.#outbound = new BackpressureSender(socket, caps, onSlowConsumer && ((bufferedBytes) => onSlowConsumer(this.id, bufferedBytes)));
    this.quota = options.quota;
    this.baseUrl = options.baseUrl;
    this.share = options.share;
    this.#user = options.user;
    // A WebSocket does not outlive its share link, nor its token unless the client sends a newer one (auth.refresh).
    if (options.share?.expiresAt !== undefined) this.#expireShareAt(Date.parse(options.share.expiresAt));
    if (options.user !== undefined) this.expireAt(options.user.expiresAt);
  }

  /** The signed-in user (INTERTHOUGHT_AUTH `jwt` or `proxy`), from the upgrade or its latest `auth.refresh`; undefined with `none` or `token`. */
  get user(): Identity | undefined {
    return this.#user;
  }

  /** Sessions this connection created (counted against its cap). */
  get sessionsCreated(): number {
    return this.#sessionsCreated;
  }

  /** A session is being created from this connection: it counts against the cap from now on. */
  countCreatedSession(): void {
    this.#sessionsCreated += 1;
  }

  /** The creation counted was refused: it does not use up the cap. */
  uncountCreatedSession(): void {
    this.#sessionsCreated -= 1;
  }

  /** Verify a refreshed token with `verify`; an expiry that falls due meanwhile waits for the outcome. */
  async duringRefresh<T>(verify: () => Promise<T>): Promise<T> {
    this.#refreshing = true;
    try {
      return await verify();
    } finally {
      this.#refreshing = false;
    }
  }

  /** The same user signed in again (`auth.refresh`): the connection now lasts until the newer token expires. */
  signedInAgain(user: Identity): void {
    this.#user = user;
    this.expireAt(user.expiresAt);
  }

  /**
   * Carry out `request` (which never rejects) after every request that came before it on this
   * connection, so answers and refusals keep the order of the frames. With none pending, it starts
   * at once: the common case costs no extra turn.
   */
  inTurn(request: () => Promise<void> | void): void {
    this.#waiting += 1;
    const settled = (): void => {
      this.#waiting -= 1;
      if (this.#waiting === 0) this.#turn = undefined;
    };
    if (this.#turn === undefined) {
      const started = request();
      if (started === undefined) {
        settled();
        return;
      }
      this.#turn = started.then(settled);
      return;
    }
    this.#turn = this.#turn.then(request).then(settled);
  }

  /**
   * The hot path: the core's frame goes out as its text (serialised once for every subscriber),
   * only to an open socket. A client that falls behind gets its deltas coalesced, and is closed
   * with 4008 past the hard cap.
   */
  send(frame: Frame): void {
    this.#outbound.send(frame);
  }

  /**
   * The connection lasts as long as its share link: expiry is kept here (at `expiresAt`, ms since
   * the epoch); a revocation is seen by `ShareRevocations`, which closes the connection.
   */
  #expireShareAt(expiresAt: number): void {
    const onDue = (): void => {
      if (Date.now() < expiresAt) {
        this.#shareExpiry = setTimeout(onDue, Math.min(expiresAt - Date.now(), MAX_TIMER_MS));
        this.#shareExpiry.unref();
        return;
      }
      this.closeInTurn(SHARE_ENDED_CLOSE.code, SHARE_ENDED_CLOSE.reason);
    };
    this.#shareExpiry = setTimeout(onDue, Math.min(Math.max(expiresAt - Date.now(), 0), MAX_TIMER_MS));
    this.#shareExpiry.unref();
  }

  /** A list change: live like an event (it counts toward the hard cap), but never coalesced. */
  sendLive(frame: Frame): void {
    this.#outbound.send(frame, true);
  }

  /** True once the connection is to be closed: no later frame is carried out. */
  get closing(): boolean {
    return this.#closing;
  }

  /** Close the socket once every request before this call has been answered. */
  closeInTurn(code: number, reason: string): void {
    this.#closing = true;
    this.inTurn(() => this.socket.close(code, reason));
  }

  /** Send a frame this transport builds itself (errors, hello). */
  sendMessage(message: ServerMessage): void {
    this.send(frameOf(message));
  }

  /**
   * Close with 4401 "token expired" at `expiresAt` (ms since the epoch), replacing any earlier
   * deadline (an `auth.refresh`). Timers hold at most ~24.8 days, so a later one is re-armed.
   */
  expireAt(expiresAt: number | undefined): void {
    clearTimeout(this.#expiry);
    this.#expiry = undefined;
    if (expiresAt === undefined) return;
    const delay = expiresAt - Date.now();
    const onDue = (): void => {
      this.#expiry = undefined;
      if (Date.now() < expiresAt) return this.expireAt(expiresAt);
      if (!this.#refreshing) this.closeInTurn(TOKEN_EXPIRED_CLOSE.code, TOKEN_EXPIRED_CLOSE.reason);
    };
    this.#expiry = setTimeout(onDue, Math.min(Math.max(delay, 0), MAX_TIMER_MS));
    this.#expiry.unref();
  }

  /** The socket closed: drop what still waits for it. */
  dispose(): void {
    clearTimeout(this.#expiry);
    clearTimeout(this.#shareExpiry);
    this.#outbound.dispose();
  }

  get open(): boolean {
    return this.socket.readyState === WebSocket.OPEN;
  }
}
