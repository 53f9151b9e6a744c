/** What the runs table needs of a run: the scope it writes in (absent for the session's own chain). */
export interface ScopedRun {
  readonly scope: string | undefined;
}

/**
 * The runs of one session, one per scope (PROTOCOL.md §24): the session's own run (scope
 * `undefined`) and a run per sub-agent that is working now. A run is allowed to write only while
 * it is its scope's entry here; a newer run of the same scope makes the older one stale.
 */
export class ScopeRuns<Run extends ScopedRun> {
  readonly #runs = new Map<string | undefined, Run>();

  /** The run of `scope` (the session's own when absent). */
  of(scope: string | undefined): Run | undefined {
    return this.#runs.get(scope);
  }

  /** `run` is its scope's run from now on (a previous one of that scope is stale). */
  claim(run: Run): void {
    this.#runs.set(run.scope, run);
  }

  /** `run` ended: its scope has no run, unless a newer one claimed it meanwhile. */
  release(run: Run): void {
    if (this.#runs.get(run.scope) === run) this.#runs.delete(run.scope);
  }

  get size(): number {
    return this.#runs.size;
  }

  /** Every run, the session's own first when it has one. */
  all(): Run[] {
    return [...this.#runs.values()];
  }
}
