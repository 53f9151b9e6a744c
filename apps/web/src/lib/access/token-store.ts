/** The key of the access token in the tab's session storage. */
export const TOKEN_STORAGE_KEY = 'interthought.token';

type TokenStorage = Pick<Storage, 'getItem' | 'setItem' | 'removeItem'>;

/**
 * The server's access token as this tab knows it. sessionStorage, not localStorage: the secret
 * lives as long as the tab (a reload keeps it) and is never left on disk for whatever later page
 * gets this origin (a localhost port is reused by other apps); a new tab takes the link or a paste.
 */
export class TokenStore {
  #token: string | undefined;

  constructor(private readonly storage: TokenStorage | null) {
    this.#token = readSafely(storage);
  }

  /** The token, if the tab has one. */
  get token(): string | undefined {
    return this.#token;
  }

  /** Keep `token` for this tab (in memory alone if storage is refused, e.g. in a sandboxed frame). */
  set(token: string): void {
    this.#token = token;
    try {
      this.storage?.setItem(TOKEN_STORAGE_KEY, token);
    } catch {
      // The token still works for this page; only a reload forgets it.
    }
  }

  /** Forget the token (signing out): the next connection presents none. */
  clear(): void {
    this.#token = undefined;
    try {
      this.storage?.removeItem(TOKEN_STORAGE_KEY);
    } catch {
      // Nothing stored, or storage refused: the token is gone from memory either way.
    }
  }
}

function readSafely(storage: TokenStorage | null): string | undefined {
  try {
    return storage?.getItem(TOKEN_STORAGE_KEY) || undefined;
  } catch {
    return undefined;
  }
}

/** The tab's session storage, or null where the browser refuses it. */
export function tabStorage(): Storage | null {
  try {
    return window.sessionStorage;
  } catch {
    return null;
  }
}
