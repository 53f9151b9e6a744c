import { SHARE_ENDED_CLOSE, TOKEN_EXPIRED_CLOSE, type InterthoughtClient, type Me, type User } from '@interthought/protocol';
import type { AccessAnswer } from '$lib/api/rest-api.js';
import type { TokenStore } from './token-store.js';

/**
 * Why the app cannot reach the server's data: it has no token (or sign-in), the server refused the
 * one it has, or the share link the page was opened with was revoked or expired.
 */
export type AccessProblem = 'missing' | 'refused' | 'share-ended';

/** While the socket keeps failing and the server could not be asked, ask again this often. */
const DEFAULT_RECHECK_MS = 5_000;

export interface AccessGateDeps {
  tokens: Pick<TokenStore, 'token' | 'set' | 'clear'>;
  client: Pick<InterthoughtClient, 'state' | 'onStateChange' | 'close' | 'connect' | 'reconnectNow'>;
  /** Ask the REST API whether the current token lets us in (a browser cannot see why an upgrade failed). */
  check: () => Promise<AccessAnswer>;
  /** While the server cannot be reached, how often to ask again (default 5 s). */
  recheckMs?: number;
  /** The share link token the page presents, if any: its holder needs no sign-in, and may see it end. */
  presentedShare?: () => string | undefined;
  /** Forget the share link presented now (it ended and the user moves on). */
  forgetShare?: () => void;
  /** The app's sockets, whose close codes say a share link ended (4403) or a sign-in expired (4401). */
  socketCloses?: { onClose(listener: (code: number) => void): () => void };
  /** The REST API, whose 401 answers say the token was refused. */
  refusals?: { onUnauthorized(listener: (token: string | undefined) => void): () => void };
}

/**
 * Whether this tab may use the server, who the server says it is, and what to tell the user when
 * it may not. A WebSocket refused with 401 looks to the page like any dropped connection, so the
 * server is asked (`GET /api/me`) at the start and whenever the socket fails; a refusal (from that,
 * or a 401 to any REST call) stops the client, which would otherwise retry for ever, until the
 * user signs in. A share link that ends (the socket's 4403, or the server no longer granting it)
 * stops it the same way, with its own page.
 */
export class AccessGate {
  #problem = $state<AccessProblem | null>(null);
  /** What the server last said of this page's credentials. */
  #me = $state.raw<Me | undefined>(undefined);
  /** A pasted token is being checked. */
  #checking = $state(false);
  /** The refusal is the server closing the socket at the JWT's expiry (4401): nothing the tab holds will do. */
  #expired = $state(false);
  #recheckTimer: ReturnType<typeof setTimeout> | undefined;
  /** The first question to the server, while it has not answered: a refusal heard meanwhile waits for it, so the page names the sign-in mode at once. */
  #firstLook: Promise<void> | undefined;
  #stopListening: (() => void) | null = null;

  constructor(private readonly deps: AccessGateDeps) {
    // Heard from the start, not only once `start` runs: a page may call the API before the layout starts the app.
    deps.socketCloses?.onClose((code) => {
      // A revoked or expired link, or an expired sign-in: the server will refuse it from now on, so the page says so instead of retrying.
      if (code === SHARE_ENDED_CLOSE.code) this.shareEnded();
      else if (code === TOKEN_EXPIRED_CLOSE.code) this.tokenExpired();
    });
    deps.refusals?.onUnauthorized((token) => this.refused(token));
  }

  get problem(): AccessProblem | null {
    return this.#problem;
  }

  get checking(): boolean {
    return this.#checking;
  }

  /** Whether the page was stopped because its sign-in expired (the socket's 4401). */
  get expired(): boolean {
    return this.#expired;
  }

  /** Who the server says this page is, once it said so (`auth`, `signedIn`, `user`, `loginUrl`, `reason`). */
  get me(): Me | undefined {
    return this.#me;
  }

  /** The signed-in user, if the server tells users apart. */
  get user(): User | undefined {
    return this.#me?.user;
  }

  /** Ask the server who this page is now, and follow the connection: each time it drops (or never opens), find out whether access is why. */
  start(): void {
    this.#stopListening?.();
    this.#stopListening = this.deps.client.onStateChange((state) => {
      if (state === 'reconnecting') void this.#recheck();
      else this.#cancelRecheck();
    });
    const look = this.#look()
      .catch(() => undefined)
      .finally(() => {
      if (this.#firstLook === look) this.#firstLook = undefined;
    });
    this.#firstLook = look;
  }

  stop(): void {
    this.#stopListening?.();
    this.#stopListening = null;
    this.#cancelRecheck();
  }

  /** The server answered 401 to a request made with `token`; a request made with an older token says nothing now. */
  refused(token: string | undefined): void {
    if (token !== this.deps.tokens.token) return;
    // With a share link the refusal may be the route's, not the link's: the server says which.
    if (this.deps.presentedShare?.() !== undefined) void this.#look();
    // A REST call can be refused before the server said how this page signs in; blocking then
    // would first ask for a shared token, and only a moment later for a sign-in.
    else if (this.#firstLook !== undefined) {
      void this.#firstLook.then(() => {
        if (token === this.deps.tokens.token && this.#problem === null) this.#block();
      });
    } else this.#block();
  }

  /** The server closed the socket because the share link ended (4403): stop, and say so. */
  shareEnded(): void {
    if (this.deps.presentedShare?.() === undefined) return;
    this.#cancelRecheck();
    this.#problem = 'share-ended';
    this.deps.client.close();
  }

  /**
   * The server closed the socket because the JWT expired (4401). The tab has no newer token to
   * offer (a refresh would have come before), and for a few seconds of clock skew the server would
   * still let the old one connect, only to close it again: stop, and ask for a sign-in.
   */
  tokenExpired(): void {
    if (this.deps.tokens.token === undefined) return;
    this.#cancelRecheck();
    this.#expired = true;
    this.#problem = 'refused';
    this.deps.client.close();
  }

  /** Leave a share link that ended: forget it and connect as the tab otherwise would (the page then goes home). */
  leaveShare(): void {
    this.deps.forgetShare?.();
    this.#problem = null;
    this.#reconnect();
  }

  /**
   * Sign out: forget the tab's token, so the next page (the operator's sign-in) starts afresh, and
   * close the socket, so it does not try again without the token while the page goes.
   */
  signOut(): void {
    this.deps.tokens.clear();
    this.#cancelRecheck();
    this.deps.client.close();
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
      if (answer.me) this.#me = answer.me;
      if (answer.access === 'unauthorized') return this.#block();
      this.#problem = null;
      this.#expired = false;
      this.#reconnect();
    } finally {
      this.#checking = false;
    }
  }

  /** Ask the server who the page is; block if it may not come in. */
  async #look(): Promise<void> {
    const token = this.deps.tokens.token;
    const answer = await this.deps.check();
    if (token !== this.deps.tokens.token) return;
    if (answer.me) this.#me = answer.me;
    if (this.#shareNoLongerGranted(answer) || answer.access === 'unauthorized') this.#block();
  }

  async #recheck(): Promise<void> {
    this.#cancelRecheck();
    const token = this.deps.tokens.token;
    const answer = await this.deps.check();
    if (token !== this.deps.tokens.token || this.deps.client.state !== 'reconnecting') return;
    if (answer.me) this.#me = answer.me;
    if (this.#shareNoLongerGranted(answer) || answer.access === 'unauthorized') this.#block();
    // Down, or up but the socket still fails: the server may come back needing another token, or
    // stop taking this one (a JWT's expiry forgiven for a few seconds of skew), so look again.
    else this.#recheckTimer = setTimeout(() => void this.#recheck(), this.deps.recheckMs ?? DEFAULT_RECHECK_MS);
  }

  /** The page presents a share link the server no longer grants (revoked, expired, its session deleted). */
  #shareNoLongerGranted(answer: AccessAnswer): boolean {
    return this.deps.presentedShare?.() !== undefined && answer.me !== undefined && answer.me.share === undefined;
  }

  #block(): void {
    this.#cancelRecheck();
    this.#expired = false;
    if (this.deps.presentedShare?.() !== undefined) this.#problem = 'share-ended';
    else this.#problem = this.deps.tokens.token === undefined ? 'missing' : 'refused';
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
