/** When a JWT expires (its `exp`, in ms since the epoch), read without verifying it; undefined for anything else. */
export function jwtExpiry(token: string): number | undefined {
  const payload = token.split('.')[1];
  if (payload === undefined || payload === '') return undefined;
  try {
    const base64 = payload.replace(/-/g, '+').replace(/_/g, '/');
    const json = JSON.parse(atob(base64.padEnd(base64.length + ((4 - (base64.length % 4)) % 4), '='))) as { exp?: unknown };
    return typeof json.exp === 'number' && Number.isFinite(json.exp) ? json.exp * 1000 : undefined;
  } catch {
    return undefined;
  }
}

/** What the refresher needs of the client. */
export interface TokenRefreshHost {
  /** The application's token function, asked for a newer token. */
  token: () => string | undefined;
  /** Send `auth.refresh`; resolves once the server answers `auth.refreshed`, rejects on a refusal. */
  refresh: (token: string) => Promise<unknown>;
  /** How long before the token's expiry to start asking for a newer one. */
  leadMs: number;
}

/** How soon to ask the token function again when it has nothing newer yet, or the server refused. */
const RETRY_MS = 5_000;

/**
 * Keeps a connection signed in past its token's expiry (PROTOCOL.md §3.3): shortly before the
 * JWT the connection opened with expires, it asks the token function for a newer one and sends it
 * as `auth.refresh`. Only against a server that announced `auth-refresh`; a token that is not a
 * JWT with `exp` is never refreshed. If none comes in time, the server closes with 4401 and the
 * client's reconnect asks the token function anyway.
 */
export class TokenRefresher {
  #current: string | undefined;
  #expiresAt: number | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;
  /** Bumped for every connection, so an answer for an older one changes nothing. */
  #generation = 0;

  constructor(private readonly host: TokenRefreshHost) {}

  /** A connection attempt opens with `token`. */
  opening(token: string | undefined): void {
    this.stop();
    this.#current = token;
    this.#expiresAt = token === undefined ? undefined : jwtExpiry(token);
  }

  /** The connection is open: schedule a refresh if the server can take one. */
  opened(serverRefreshes: boolean): void {
    if (serverRefreshes) this.#schedule(this.#generation, (this.#expiresAt ?? 0) - this.host.leadMs);
  }

  /** The connection is gone (or the client closed): no refresh until the next one opens. */
  stop(): void {
    this.#generation += 1;
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #schedule(generation: number, at: number): void {
    const expiresAt = this.#expiresAt;
    if (expiresAt === undefined || Date.now() >= expiresAt) return;
    this.#timer = setTimeout(() => void this.#refresh(generation), Math.max(at - Date.now(), 0));
  }

  async #refresh(generation: number): Promise<void> {
    this.#timer = undefined;
    const next = this.host.token();
    const nextExpiry = next === undefined ? undefined : jwtExpiry(next);
    if (next !== undefined && next !== this.#current && nextExpiry !== undefined && nextExpiry > (this.#expiresAt ?? 0)) {
      try {
        await this.host.refresh(next);
        if (generation !== this.#generation) return;
        this.#current = next;
        this.#expiresAt = nextExpiry;
        this.#schedule(generation, nextExpiry - this.host.leadMs);
        return;
      } catch {
        // Refused (another user, invalid) or the connection dropped: asked again below while it lives.
        if (generation !== this.#generation) return;
      }
    }
    const left = (this.#expiresAt ?? 0) - Date.now();
    this.#schedule(generation, Date.now() + Math.min(RETRY_MS, Math.max(left / 2, 50)));
  }
}
