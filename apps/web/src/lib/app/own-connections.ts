const STORAGE_KEY = 'interthought.connections';
const REMEMBERED = 50;

type Store = Pick<Storage, 'getItem' | 'setItem'>;

/**
 * The connection ids this browser has had. The server records a correction's author as the
 * connection id; remembering ours (across reloads and tabs) lets the UI say "corrected by you".
 */
export class OwnConnections {
  readonly #ids: string[];

  constructor(private readonly store: Store | null) {
    this.#ids = read(store);
  }

  remember(connectionId: string): void {
    if (this.#ids.includes(connectionId)) return;
    this.#ids.push(connectionId);
    if (this.#ids.length > REMEMBERED) this.#ids.splice(0, this.#ids.length - REMEMBERED);
    try {
      this.store?.setItem(STORAGE_KEY, JSON.stringify(this.#ids));
    } catch {
      // Storage may be full or refused; this tab still knows its own ids.
    }
  }

  has(connectionId: string | undefined): boolean {
    if (connectionId === undefined) return false;
    // Another tab may have added ids since this one loaded.
    return this.#ids.includes(connectionId) || read(this.store).includes(connectionId);
  }
}

function read(store: Store | null): string[] {
  try {
    const value: unknown = JSON.parse(store?.getItem(STORAGE_KEY) ?? '[]');
    return Array.isArray(value) ? value.filter((id): id is string => typeof id === 'string') : [];
  } catch {
    return [];
  }
}
