import type { ConnectionState, Hello, InterthoughtClient } from '@interthought/protocol';

/** What the connection indicator shows. */
export type ConnectionDisplay =
  | { tone: 'ok'; label: 'connected' }
  | { tone: 'pending'; label: 'connecting' | 'reconnecting' }
  | { tone: 'down'; label: 'offline'; retryInSeconds: number | undefined };

/** A wait before the next attempt longer than this is shown as "offline — retrying in N s". */
const OFFLINE_AFTER_MS = 900;

/**
 * The socket client's connection state as reactive fields for the indicator. The client is a
 * plain class without runes; this mirrors it, polling `reconnectAt` while it waits to retry.
 */
export class ConnectionStatus {
  #state = $state<ConnectionState>('closed');
  /** When the client tries again, while it waits to (epoch ms). */
  #retryAt = $state<number | undefined>(undefined);
  /** The server's hello on the connection open now (kept while reconnecting: the page keeps what it showed). */
  #hello = $state.raw<Hello | undefined>(undefined);
  #timer: ReturnType<typeof setInterval> | null = null;
  readonly #stopListening: () => void;

  constructor(private readonly client: Pick<InterthoughtClient, 'state' | 'reconnectAt' | 'onStateChange' | 'reconnectNow' | 'connect' | 'hello'>) {
    this.#state = client.state;
    this.#hello = client.hello;
    this.#stopListening = client.onStateChange((state) => this.#update(state));
  }

  #update(state: ConnectionState): void {
    this.#state = state;
    this.#retryAt = this.client.reconnectAt;
    if (state === 'open') this.#hello = this.client.hello;
    if (state === 'reconnecting' && this.#timer === null) {
      this.#timer = setInterval(() => (this.#retryAt = this.client.reconnectAt), 250);
    } else if (state !== 'reconnecting' && this.#timer !== null) {
      clearInterval(this.#timer);
      this.#timer = null;
    }
  }

  get state(): ConnectionState {
    return this.#state;
  }

  /** Who the server knows this connection as (`user`), through which share link (`share`), and what it offers. */
  get hello(): Hello | undefined {
    return this.#hello;
  }

  get retryAt(): number | undefined {
    return this.#retryAt;
  }

  /** The indicator's tone and label at time `now`. */
  display(now: number): ConnectionDisplay {
    switch (this.state) {
      case 'open':
        return { tone: 'ok', label: 'connected' };
      case 'connecting':
        return { tone: 'pending', label: 'connecting' };
      case 'reconnecting': {
        const wait = this.retryAt === undefined ? 0 : this.retryAt - now;
        if (wait > OFFLINE_AFTER_MS) return { tone: 'down', label: 'offline', retryInSeconds: Math.ceil(wait / 1000) };
        return { tone: 'pending', label: 'reconnecting' };
      }
      case 'closed':
        return { tone: 'down', label: 'offline', retryInSeconds: undefined };
      default: {
        const unknown: never = this.state;
        void unknown;
        return { tone: 'down', label: 'offline', retryInSeconds: undefined };
      }
    }
  }

  /** The retry button: try now instead of waiting out the backoff. */
  retry(): void {
    if (this.state === 'closed') void this.client.connect().catch(() => undefined);
    else this.client.reconnectNow();
  }

  dispose(): void {
    this.#stopListening();
    if (this.#timer !== null) clearInterval(this.#timer);
    this.#timer = null;
  }
}
