/**
 * A small least-recently-used map. A streaming step is re-rendered on every delta; with this its
 * formulas are typeset once, not once per delta, and a long chain cannot grow the cache unbounded.
 */
export class FormulaCache<V> {
  readonly #entries = new Map<string, V>();

  constructor(readonly capacity: number) {}

  get size(): number {
    return this.#entries.size;
  }

  /** The cached value (now the most recently used), or what `make` returns, cached. */
  getOrMake(key: string, make: () => V): V {
    const entries = this.#entries;
    if (entries.has(key)) {
      const value = entries.get(key) as V;
      // A Map iterates in insertion order: re-inserting makes it the newest.
      entries.delete(key);
      entries.set(key, value);
      return value;
    }
    const value = make();
    entries.set(key, value);
    if (entries.size > this.capacity) entries.delete(entries.keys().next().value as string);
    return value;
  }
}
