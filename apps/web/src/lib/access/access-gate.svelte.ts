import type { InterthoughtClient } from '@interthought/protocol';
import type { AccessCheck } from '$lib/api/rest-api.js';
import type { TokenStore } from './token-store.js';

/** Why the app cannot reach the server's data: it has no token, or the server refused the one it has. */
export type AccessProblem = 'missing' | 'refused';

/** While the socket keeps failing and the server could not be asked, ask again this often. */
const DEFAULT_RECHECK_MS = 5_000;

export interface AccessGateDeps {
  tokens: Pick<TokenStore, 'token' | 'set'>;
  client: Pick<InterthoughtClient, 'state' | 'onStateChange' | 'close' | 'connect' | 'reconnectNow'>;
  /** Ask the REST API whether the current token lets us in (a browser cannot see why an upgrade failed). */
  check: () => Promise<AccessCheck>;
  /** While the server cannot be reached, how often to ask again (default 5 s). */
  recheckMs?: number;
}

/**
 * Whether this tab may use the server, and what to tell the user when it may not. A WebSocket
 * refused with 401 looks to the page like any dropped connection, so a socket that fails is
 * followed by a REST check; a 401 (from the check or any REST call) stops the client, which
 * would otherwise retry for ever, until the user gives a token the server accepts.
 */
export class AccessGate {
  #problem = $state<AccessProblem | null>(null);
  /** A pasted token is being checked. */
  #checking = $state(false);
  #recheckTimer: ReturnType<typeof setTimeout> | undefined;
  #stopListening: (() => void) | null = null;

  constructor(private readonly deps: AccessGateDeps) {}

  get problem(): AccessProblem | null {
    return this.#problem;
  }

  get checking(): boolean {
    return this.#checking;
  }

  /** Follow the connection: each time it drops (or never opens), find out whether the token is why. */
  start(): void {
    this.#stopListening?.();
    this.#stopListening = this.deps.client.onStateChange((state) => {
      if (state === 'reconnecting') void this.#recheck();
      else this.#cancelRecheck();
    });
  }

  stop(): void {
    this.#stopListening?.();
    this.#stopListening = null;
    this.#cancelRecheck();
  }

  /** The server answered 401 to a request made with `token`; a request made with an older token says nothing now. */
  refused(token: string | undefined): void {
    if (token !== this.deps.tokens.token) return;
    this.#block();
  }

  /** Use `token` from now on: check it, and connect if the server takes it. */
  async submit(token: string): Promise<void> {
    const trimmed = token.trim();
    if (trimmed === '' || this.#checking) return;
    this.deps.tokens.set(trimmed);
    this.#checking = true;
    try {
      const answer = await this.deps.check();
      if (trimmed !== this.deps.tokens.token) return;
      if (answer === 'unauthorized') return this.#block();
      this.#problem = null;
      this.#reconnect();
    } finally {
      this.#checking = false;
    }
  }

  async #recheck(): Promise<void> {
    this.#cancelRecheck();
    const token = this.deps.tokens.token;
    const answer = await this.deps.check();
    if (token !== this.deps.tokens.token || this.deps.client.state !== 'reconnecting') return;
    if (answer === 'unauthorized') this.#block();
    // Down: the server may come back needing another token, so look again while it stays away.
    else if (answer === 'unreachable') this.#recheckTimer = setTimeout(() => void this.#recheck(), this.deps.recheckMs ?? DEFAULT_RECHECK_MS);
  }

  #block(): void {
    this.#cancelRecheck();
    this.#problem = this.deps.tokens.token === undefined ? 'missing' : 'refused';
    this.deps.client.close();
  }

  #reconnect(): void {
    const { client } = this.deps;
    if (client.state === 'closed') void client.connect().catch(() => undefined);
    else if (client.state === 'reconnecting') client.reconnectNow();
  }

  #cancelRecheck(): void {
    clearTimeout(this.#recheckTimer);
    this.#recheckTimer = undefined;
  }
}
