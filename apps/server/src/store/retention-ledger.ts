/** The longest an event log may grow past `keep` before it is trimmed, as a fraction of `keep`. */
const SLACK_FRACTION = 4;

/**
 * The retention rule every store that trims its logs follows (SQLite, Postgres), and what it
 * remembers per session so deciding costs no query: a log is trimmed only when it exceeds
 * `keep + keep / 4` events, and then back to `keep`, so each event is folded once and a trim happens
 * every `keep / 4` appends. A log that cannot be folded is left whole rather than retried each batch.
 * The stores own reading, folding and deleting; this owns when, and what it cost them to know.
 */
export class RetentionLedger {
  private readonly slack: number;
  /** The lowest kept seq per session, once a store has read or moved it. */
  private readonly firstKept = new Map<string, number>();
  private readonly unfoldable = new Set<string>();

  constructor(readonly keep: number) {
    this.slack = Math.max(1, Math.floor(keep / SLACK_FRACTION));
  }

  /** The first kept seq this ledger knows for the session, if any (else the store reads it and `remember`s it). */
  known(sessionId: string): number | undefined {
    return this.firstKept.get(sessionId);
  }

  remember(sessionId: string, firstKept: number | undefined): number | undefined {
    if (firstKept !== undefined) this.firstKept.set(sessionId, firstKept);
    return firstKept;
  }

  /** Whether the session is left whole (its log could not be folded once). */
  skips(sessionId: string): boolean {
    return this.unfoldable.has(sessionId);
  }

  /** The seq to trim through now that the session's log ends at `lastSeq`, or undefined when it is within bounds. */
  trimThrough(firstKept: number | undefined, lastSeq: number): number | undefined {
    if (firstKept === undefined || lastSeq - firstKept + 1 <= this.keep + this.slack) return undefined;
    return lastSeq - this.keep;
  }

  trimmed(sessionId: string, throughSeq: number): void {
    this.firstKept.set(sessionId, throughSeq + 1);
  }

  /** A fold failed: the session's log stays whole, and the operator is told once. */
  failed(sessionId: string, error: unknown): void {
    this.unfoldable.add(sessionId);
    process.emitWarning(`Retention keeps every event of session ${sessionId}: its log could not be folded into a snapshot (${(error as Error).message}).`, { code: 'INTERTHOUGHT_RETENTION' });
  }

  /** Drop what is remembered of a deleted session. */
  forget(sessionId: string): void {
    this.firstKept.delete(sessionId);
    this.unfoldable.delete(sessionId);
  }
}
