import type { Connection } from './connection.js';

/**
 * Pings every connection each `intervalMs`; one that has not answered the previous ping is
 * terminated (a half-open TCP connection would otherwise hold its subscriptions forever).
 */
export class Heartbeat {
  readonly #connections = new Set<Connection>();
  #timer: NodeJS.Timeout | undefined;

  constructor(readonly intervalMs: number) {}

  add(connection: Connection): void {
    connection.alive = true;
    connection.socket.on('pong', () => {
      connection.alive = true;
    });
    this.#connections.add(connection);
    this.#timer ??= setInterval(() => this.#beat(), this.intervalMs).unref();
  }

  delete(connection: Connection): void {
    this.#connections.delete(connection);
    if (this.#connections.size === 0) this.stop();
  }

  stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  #beat(): void {
    for (const connection of this.#connections) {
      if (!connection.alive) {
        connection.socket.terminate();
        continue;
      }
      connection.alive = false;
      if (connection.open) connection.socket.ping();
    }
  }
}
