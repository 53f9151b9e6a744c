import type { CorrectionPage } from '@interthought/protocol';
import type { CorrectionQuery, IndexedCorrection } from './correction-index.js';
import { decodeCorrectionCursor, encodeCorrectionCursor, matchesQuery, orderKey } from './correction-order.js';
import type { StoredCorrections } from './stored-corrections.js';

/**
 * The index in memory: the in-memory store's (and a server given sessions without their store).
 * Kept sorted by order key, newest last.
 */
export class MemoryCorrections implements StoredCorrections {
  readonly #byKey = new Map<string, IndexedCorrection>();
  /** Order keys, ascending. */
  #keys: string[] = [];
  readonly #bySession = new Map<string, Set<string>>();
  #built: boolean;

  /** `built`: nothing to rebuild (a store that starts empty). */
  constructor(options: { built: boolean } = { built: true }) {
    this.#built = options.built;
  }

  /** Add (or replace) records. */
  write(records: readonly IndexedCorrection[]): void {
    let added = false;
    for (const indexed of records) {
      const key = orderKey(indexed.record);
      if (!this.#byKey.has(key)) added = true;
      this.#byKey.set(key, indexed);
      let keys = this.#bySession.get(indexed.record.sessionId);
      if (keys === undefined) this.#bySession.set(indexed.record.sessionId, (keys = new Set()));
      keys.add(key);
    }
    if (added) this.#keys = [...this.#byKey.keys()].sort();
  }

  removeSession(sessionId: string): void {
    const keys = this.#bySession.get(sessionId);
    if (keys === undefined) return;
    this.#bySession.delete(sessionId);
    for (const key of keys) this.#byKey.delete(key);
    this.#keys = this.#keys.filter((key) => !keys.has(key));
  }

  async page(query: CorrectionQuery): Promise<CorrectionPage> {
    const before = query.before === undefined ? undefined : decodeCorrectionCursor(query.before);
    const found: IndexedCorrection[] = [];
    let lastKey: string | undefined;
    let more = false;
    for (let i = this.#keys.length - 1; i >= 0; i--) {
      const key = this.#keys[i]!;
      if (before !== undefined && key >= before) continue;
      const indexed = this.#byKey.get(key)!;
      if (!matchesQuery(indexed, query)) continue;
      if (found.length === query.limit) {
        more = true;
        break;
      }
      found.push(indexed);
      lastKey = key;
    }
    const corrections = found.map((indexed) => indexed.record);
    return more && lastKey !== undefined ? { corrections, nextCursor: encodeCorrectionCursor(lastKey) } : { corrections };
  }

  async isBuilt(): Promise<boolean> {
    return this.#built;
  }

  async putRebuilt(records: readonly IndexedCorrection[]): Promise<void> {
    this.write(records);
  }

  async markBuilt(): Promise<void> {
    this.#built = true;
  }
}
