/** The key of the tab's share link tokens in session storage. */
export const SHARE_STORAGE_KEY = 'interthought.shares';
/** A tab that opened more links than this keeps the latest ones. */
const KEPT = 20;

type ShareStorage = Pick<Storage, 'getItem' | 'setItem'>;

/**
 * The share link tokens this tab was opened with, by session id. Like the access token they live
 * in session storage: a reload keeps working, a new tab needs the link again, and nothing is left
 * on disk for whatever page gets this origin later.
 */
export class ShareTokenStore {
  #tokens: Map<string, string>;

  constructor(private readonly storage: ShareStorage | null) {
    this.#tokens = read(storage);
  }

  /** The token the tab holds for `sessionId`, if any. */
  tokenFor(sessionId: string): string | undefined {
    return this.#tokens.get(sessionId);
  }

  /** Keep `token` for `sessionId` (a later link to the same session replaces the earlier one). */
  set(sessionId: string, token: string): void {
    this.#tokens.delete(sessionId);
    this.#tokens.set(sessionId, token);
    while (this.#tokens.size > KEPT) this.#tokens.delete(this.#tokens.keys().next().value!);
    this.#save();
  }

  /** Forget the link to `sessionId` (it ended, or the user left it). */
  forget(sessionId: string): void {
    if (this.#tokens.delete(sessionId)) this.#save();
  }

  #save(): void {
    try {
      this.storage?.setItem(SHARE_STORAGE_KEY, JSON.stringify(Object.fromEntries(this.#tokens)));
    } catch {
      // The link still works for this page; only a reload forgets it.
    }
  }
}

function read(storage: ShareStorage | null): Map<string, string> {
  try {
    const value: unknown = JSON.parse(storage?.getItem(SHARE_STORAGE_KEY) ?? '{}');
    if (!value || typeof value !== 'object' || Array.isArray(value)) return new Map();
    return new Map(Object.entries(value).filter((entry): entry is [string, string] => typeof entry[1] === 'string' && entry[1] !== ''));
  } catch {
    return new Map();
  }
}
