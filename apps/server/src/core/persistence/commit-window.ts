/** How many events the outbox groups into one transaction. */
export type CommitSpan =
  /** The events one synchronous run queued (an agent's callback, a correction's turn): committed when it returns. */
  | 'run'
  /** The events of every run of an event-loop turn: committed once the turn's callbacks are done. */
  | 'turn';

/** Widen to per-turn commits when per-run commits would hold the event loop this share of the time. */
export const WIDEN_AT_LOAD = 0.25;
/** Narrow back to per-run commits below this share (well under `WIDEN_AT_LOAD`, so the span does not flap). */
export const NARROW_AT_LOAD = 0.1;
/** The load is judged over windows of at least this long. */
export const LOAD_WINDOW_MS = 250;
/**
 * Batches up to this size measure what a transaction costs by itself (its begin, commit and
 * fsync): a bigger batch mostly measures its rows, which grouping does not save.
 */
export const SMALL_BATCH_EVENTS = 16;
/**
 * Once this many events are queued, they are committed as soon as the code queuing them returns
 * (a microtask) even when the window spans the turn. Group commit pays off long before this size,
 * and a bigger batch only makes every event in it wait for the fan-out of all the others: at
 * saturation, ten firehose sessions' bursts of 512 deltas shared one batch and each delta waited
 * ~140 ms (p50) between its emit and its send; committed burst by burst, ~14 ms. A microtask
 * never splits a synchronous run, so a correction's events still share one batch.
 */
export const EARLY_COMMIT_EVENTS = 256;

/** Weight of the newest small batch in the running mean of the transaction cost. */
const COST_WEIGHT = 0.125;

/**
 * Adaptive group commit. Sharing one transaction between runs pays only when transactions are
 * dear, and it costs latency: an event then waits for the fan-out of every event queued after
 * it in the turn (20 sessions × 25 subscribers at 20k msgs/s: ~4 ms at p50 against ~0.5 ms).
 * So runs commit one by one (`run`) while that would keep the loop busy less than
 * `WIDEN_AT_LOAD` of the time, and share the turn's transaction (`turn`) when it would not: a
 * slow disk's fsync, or thousands of token callbacks a second writing to a file.
 *
 * The projected per-run load is (mean cost of a small transaction) × (runs per second), so it
 * can be judged in either span. Small batches measure what a transaction costs by itself; in
 * `turn` they grow with the turn, so the first run of a turn is committed alone once per load
 * window (a probe) and the estimate follows a disk that got faster again. Runs of more than
 * `SMALL_BATCH_EVENTS` are not sampled: they amortise their own transaction anyway.
 */
export class CommitWindow {
  #span: CommitSpan = 'run';
  /** How the current synchronous run is committed (a probe run is committed alone even in `turn`). */
  #runSpan: CommitSpan = 'run';
  /** Running mean of a small batch's write time, in ms; undefined before the first. */
  #costMs: number | undefined;
  #windowStart: number | undefined;
  #runs = 0;
  #probed = false;

  /** The span the window is in (a probe run is committed alone even in `turn`). */
  get span(): CommitSpan {
    return this.#span;
  }

  /** The mean write time of a small batch so far, in ms (0 before the first). */
  get transactionCostMs(): number {
    return this.#costMs ?? 0;
  }

  /**
   * A synchronous run starts queuing events, at `nowMs`; `startsBatch` when nothing else is
   * queued. Returns how to commit this run: alone at its end (`run`), or with the turn.
   */
  noteRun(nowMs: number, startsBatch = false): CommitSpan {
    this.#runSpan = this.#spanOfRun(nowMs, startsBatch);
    return this.#runSpan;
  }

  /**
   * The one question the outbox asks when a run that queued events returns: commit them now, or
   * let them wait for the rest of the turn? Now when the run is committed alone, or when so much
   * is queued that a bigger batch would only add latency (`EARLY_COMMIT_EVENTS`).
   */
  commitAtRunEnd(queuedEvents: number): boolean {
    return this.#runSpan === 'run' || queuedEvents >= EARLY_COMMIT_EVENTS;
  }

  #spanOfRun(nowMs: number, startsBatch: boolean): CommitSpan {
    if (Number.isFinite(nowMs)) this.#countRun(nowMs);
    if (this.#span === 'run') return 'run';
    if (startsBatch && !this.#probed) {
      this.#probed = true;
      return 'run';
    }
    return 'turn';
  }

  /** A batch of `events` took `durationMs` to write. */
  noteCommit(events: number, durationMs: number): void {
    if (events > SMALL_BATCH_EVENTS || !Number.isFinite(durationMs) || durationMs < 0) return;
    this.#costMs = this.#costMs === undefined ? durationMs : this.#costMs + (durationMs - this.#costMs) * COST_WEIGHT;
  }

  #countRun(nowMs: number): void {
    this.#windowStart ??= nowMs;
    this.#runs += 1;
    const elapsed = nowMs - this.#windowStart;
    if (elapsed < LOAD_WINDOW_MS) return;
    this.#judge((this.transactionCostMs * this.#runs) / elapsed);
    this.#windowStart = nowMs;
    this.#runs = 0;
    this.#probed = false;
  }

  #judge(load: number): void {
    if (this.#span === 'run' && load > WIDEN_AT_LOAD) this.#span = 'turn';
    else if (this.#span === 'turn' && load < NARROW_AT_LOAD) this.#span = 'run';
  }
}
