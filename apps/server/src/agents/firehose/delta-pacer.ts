/**
 * Spreads a run's deltas evenly over time: delta k is due `k / rate` seconds after the run
 * started. The clock is the run's, not a step's, so step boundaries cost no rate.
 */
export class DeltaPacer {
  readonly #startMs: number;
  #granted = 0;

  constructor(
    readonly rate: number,
    private readonly nowMs: () => number = () => performance.now(),
  ) {
    this.#startMs = nowMs();
  }

  /** Grant the deltas due now, at most `limit` (all of `limit` when the rate is unbounded). */
  take(limit: number): number {
    const due = this.rate === Infinity ? Infinity : Math.floor(((this.nowMs() - this.#startMs) * this.rate) / 1_000) + 1;
    const granted = Math.max(0, Math.min(limit, due - this.#granted));
    this.#granted += granted;
    return granted;
  }

  /** Milliseconds until the next delta is due (0 when it already is). */
  msUntilNext(): number {
    if (this.rate === Infinity) return 0;
    return Math.max(0, (this.#granted * 1_000) / this.rate - (this.nowMs() - this.#startMs));
  }
}
