import type { WebSocket } from 'ws';

/**
 * A beat this late (in intervals) found the event loop blocked since the last one: the pongs that
 * arrived meanwhile wait unread behind the timers, so it judges no one and the next beat does.
 */
const LATE_BEAT_INTERVALS = 1.5;

/** What the heartbeat needs of a connection: a client's `Connection`, or an agent worker's. */
export interface Beating {
  readonly socket: WebSocket;
  readonly open: boolean;
}

/**
 * Pings every connection each `intervalMs`; one that has not answered the previous ping is
 * terminated (a half-open TCP connection would otherwise hold its subscriptions forever).
 */
export class Heartbeat {
  readonly #connections = new Set<Beating>();
  /** Sockets pinged and not answered yet: a Set the pongs empty, not a flag and a listener per connection. */
  readonly #unanswered = new Set<WebSocket>();
  /** One 'pong' listener for every socket (ws calls it with the socket as `this`). */
  readonly #onPong: (this: WebSocket) => void;
  #timer: NodeJS.Timeout | undefined;
  #lastBeatAt = 0;

  constructor(readonly intervalMs: number) {
    const unanswered = this.#unanswered;
    this.#onPong = function (this: WebSocket): void {
      unanswered.delete(this);
    };
  }

  add(connection: Beating): void {
    connection.socket.on('pong', this.#onPong);
    this.#connections.add(connection);
    if (this.#timer === undefined) {
      this.#lastBeatAt = performance.now();
      this.#timer = setInterval(() => this.#beat(), this.intervalMs).unref();
    }
  }

  delete(connection: Beating): void {
    this.#connections.delete(connection);
    this.#unanswered.delete(connection.socket);
    if (this.#connections.size === 0) this.stop();
  }

  stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  #beat(): void {
    const now = performance.now();
    const judging = now - this.#lastBeatAt <= this.intervalMs * LATE_BEAT_INTERVALS;
    this.#lastBeatAt = now;
    for (const connection of this.#connections) {
      const socket = connection.socket;
      if (this.#unanswered.has(socket)) {
        // Its ping is still out: a late beat leaves it to the next one.
        if (judging) socket.terminate();
        continue;
      }
      // One that is not open cannot answer: it is terminated on the next beat if it has not closed by then.
      this.#unanswered.add(socket);
      if (connection.open) socket.ping();
    }
  }
}
