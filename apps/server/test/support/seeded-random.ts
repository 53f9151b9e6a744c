/**
 * A small seeded PRNG (mulberry32), shared by `pnpm chaos` and the randomised cluster test. Every
 * decision of a chaos run (when a client dies, what a hostile frame holds, when the server is
 * killed) comes from it, so `--seed=N` replays the same decisions. Timing on a shared machine still varies, so interleavings can differ between runs.
 */
export class SeededRandom {
  #state: number;

  constructor(readonly seed: number) {
    this.#state = seed >>> 0;
  }

  /** A float in [0, 1). */
  next(): number {
    this.#state = (this.#state + 0x6d2b79f5) >>> 0;
    let t = this.#state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  }

  /** An integer from `min` to `max`, both included. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  /** True with probability `p`. */
  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error('pick needs at least one item.');
    return items[Math.floor(this.next() * items.length)] as T;
  }

  /**
   * An independent stream for one concern (a phase, a client), derived from this run's seed and a
   * label, so adding a decision in one phase does not shift the decisions of another.
   */
  fork(label: string): SeededRandom {
    let hash = this.seed ^ 0x9e3779b9;
    for (let i = 0; i < label.length; i++) hash = Math.imul(hash ^ label.charCodeAt(i), 0x01000193);
    return new SeededRandom(hash >>> 0);
  }
}

/** A fresh seed when none is given: printed with the summary so the run can be repeated. */
export function randomSeed(): number {
  return Math.floor(Math.random() * 2_147_483_647);
}
