import type Database from 'better-sqlite3';
import { applyEvent, createSessionState, toSnapshot, type SessionEvent, type SessionSnapshotData, type SessionState } from '@interthought/protocol';
import { stateBeforeFirstEvent } from '../../core/persistence/session-loader.js';
import { rowToInfo } from './session-rows.js';
import type { Statements } from './statements.js';

/** The longest an event log may grow past `keep` before it is trimmed, as a fraction of `keep`. */
const SLACK_FRACTION = 4;

/**
 * Keeps each session's log to its newest `keep` events. Trimming folds the dropped events into
 * the session's snapshot with the protocol reducer, so the snapshot plus the kept events is
 * still the whole session. It runs only when a log exceeds `keep + keep / 4`, and then drops
 * back to `keep`: each event is folded once, and a trim happens every `keep / 4` appends.
 */
export class Retention {
  private readonly slack: number;
  /** The lowest kept seq per session, so deciding to trim costs no query. */
  private readonly firstKept = new Map<string, number>();
  /** Sessions whose log cannot be folded; left whole instead of retried on every batch. */
  private readonly unfoldable = new Set<string>();

  constructor(
    private readonly db: Database.Database,
    private readonly statements: Statements,
    readonly keep: number,
  ) {
    this.slack = Math.max(1, Math.floor(keep / SLACK_FRACTION));
  }

  /**
   * After a committed batch: trim the touched sessions whose logs outgrew the limit. Runs in its
   * own transaction, so a failure here never undoes the append it follows.
   */
  afterAppend(lastSeqs: ReadonlyMap<string, number>): void {
    for (const [sessionId, lastSeq] of lastSeqs) {
      if (this.unfoldable.has(sessionId)) continue;
      const firstKept = this.firstKeptOf(sessionId);
      if (firstKept === undefined || lastSeq - firstKept + 1 <= this.keep + this.slack) continue;
      try {
        this.trim(sessionId, lastSeq - this.keep);
      } catch (error) {
        this.unfoldable.add(sessionId);
        process.emitWarning(
          `Retention keeps every event of session ${sessionId}: its log could not be folded into a snapshot (${(error as Error).message}).`,
          { code: 'INTERTHOUGHT_RETENTION' },
        );
      }
    }
  }

  /** Drop what is cached about a deleted session. */
  forget(sessionId: string): void {
    this.firstKept.delete(sessionId);
    this.unfoldable.delete(sessionId);
  }

  private firstKeptOf(sessionId: string): number | undefined {
    const cached = this.firstKept.get(sessionId);
    if (cached !== undefined) return cached;
    const seq = this.statements.firstKeptSeq.get(sessionId)?.seq ?? undefined;
    if (seq !== undefined) this.firstKept.set(sessionId, seq);
    return seq;
  }

  /** Fold events up to `throughSeq` into the snapshot, then delete them, atomically. */
  private trim(sessionId: string, throughSeq: number): void {
    const state = this.stateBeforeKeptEvents(sessionId);
    const rows = this.statements.readEvents.all(sessionId, state.seq, throughSeq, -1);
    for (const row of rows) applyEvent(state, JSON.parse(row.json) as SessionEvent);
    const snapshot: SessionSnapshotData = toSnapshot(state);
    this.db.transaction(() => {
      this.statements.writeSnapshot.run(sessionId, snapshot.seq, JSON.stringify(snapshot));
      this.statements.deleteEventsThrough.run(sessionId, throughSeq);
    })();
    this.firstKept.set(sessionId, throughSeq + 1);
  }

  /**
   * The state the kept events apply to: the stored snapshot, or, before the first trim, the
   * session as its first event finds it, exactly as the core's loader folds a whole log.
   */
  private stateBeforeKeptEvents(sessionId: string): SessionState {
    const snapshot = this.statements.readSnapshot.get(sessionId);
    if (snapshot) return createSessionState(JSON.parse(snapshot.json) as SessionSnapshotData);
    const row = this.statements.getSession.get(sessionId);
    if (!row) throw new Error(`session ${sessionId} has events but no session row`);
    return stateBeforeFirstEvent(rowToInfo(row));
  }
}
