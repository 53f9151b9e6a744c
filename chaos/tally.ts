/** Distinct violations kept word for word; past this many only the count grows (the first ones say what broke). */
const KEPT_VIOLATIONS = 40;

/** What a chaos run counted, and every invariant it saw broken. */
export class ChaosTally {
  /** Session events clients received, each checked for order (and, at the end, content against the log). */
  eventsChecked = 0;
  /** Events read back from the durable log to compare with what clients saw. */
  logEventsRead = 0;
  /** Coalesced deltas (`fromSeq` … `seq`) among the events checked. */
  coalescedFrames = 0;
  clientKills = 0;
  /** Re-subscriptions with `afterSeq` after a kill, a server close or a server restart. */
  resumes = 0;
  /** Connections the server closed on a client that fell behind (4008): such a client resumes too. */
  slowConsumerCloses = 0;
  serverRestarts = 0;
  /** Agent worker processes killed with SIGKILL mid-run. */
  workerKills = 0;
  /** Interrupted sessions continued with `session.resume`. */
  sessionResumes = 0;
  hostileFrames = 0;
  hostileConnections = 0;
  /** `error` frames received in answer to hostile frames. */
  errorsReceived = 0;
  /** The largest `error` frame the server sent (bytes). */
  largestErrorFrame = 0;
  /** Closes of hostile connections, by close code. */
  readonly hostileCloses: Record<string, number> = {};
  /** Each distinct violation and how often it happened, in the order first seen. */
  readonly #violations = new Map<string, number>();
  violationCount = 0;

  /** Record a broken invariant. */
  violation(phase: string, message: string): void {
    this.violationCount += 1;
    const text = `[${phase}] ${message}`;
    const seen = this.#violations.get(text);
    if (seen !== undefined) this.#violations.set(text, seen + 1);
    else if (this.#violations.size < KEPT_VIOLATIONS) this.#violations.set(text, 1);
  }

  /** The distinct violations kept, each with `(× n)` when it happened more than once. */
  get violations(): string[] {
    return [...this.#violations].map(([text, count]) => (count > 1 ? `${text} (× ${count})` : text));
  }

  /** Violations not listed: past the first distinct ones kept. */
  get unlistedViolations(): number {
    let listed = 0;
    for (const count of this.#violations.values()) listed += count;
    return this.violationCount - listed;
  }

  get passed(): boolean {
    return this.violationCount === 0;
  }
}
