/** Violations kept word for word; past this many only the count grows (the first ones say what broke). */
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
  readonly violations: string[] = [];
  violationCount = 0;

  /** Record a broken invariant. */
  violation(phase: string, message: string): void {
    this.violationCount += 1;
    if (this.violations.length < KEPT_VIOLATIONS) this.violations.push(`[${phase}] ${message}`);
  }

  get passed(): boolean {
    return this.violationCount === 0;
  }
}
