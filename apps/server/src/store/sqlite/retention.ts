import type Database from 'better-sqlite3';
import { applyEvent, createSessionState, toSnapshot, type SessionEvent, type SessionSnapshotData, type SessionState } from '@interthought/protocol';
import { stateBeforeFirstEvent } from '../../core/persistence/session-loader.js';
import { rowToInfo } from './session-rows.js';
import type { Statements } from './statements.js';
import { RetentionLedger } from '../retention-ledger.js';

/**
 * Keeps each session's log to its newest `keep` events (when to trim: `RetentionLedger`). Trimming
 * folds the dropped events into the session's snapshot with the protocol reducer, so the snapshot
 * plus the kept events is still the whole session.
 */
export class Retention {
  private readonly ledger: RetentionLedger;

  constructor(
    private readonly db: Database.Database,
    private readonly statements: Statements,
    readonly keep: number,
  ) {
    this.ledger = new RetentionLedger(keep);
  }

  /**
   * After a committed batch: trim the touched sessions whose logs outgrew the limit. Runs in its
   * own transaction, so a failure here never undoes the append it follows.
   */
  afterAppend(lastSeqs: ReadonlyMap<string, number>): void {
    for (const [sessionId, lastSeq] of lastSeqs) {
      if (this.ledger.skips(sessionId)) continue;
      const throughSeq = this.ledger.trimThrough(this.firstKeptOf(sessionId), lastSeq);
      if (throughSeq === undefined) continue;
      try {
        this.trim(sessionId, throughSeq);
      } catch (error) {
        this.ledger.failed(sessionId, error);
      }
    }
  }

  /** Drop what is cached about a deleted session. */
  forget(sessionId: string): void {
    this.ledger.forget(sessionId);
  }

  private firstKeptOf(sessionId: string): number | undefined {
    return this.ledger.known(sessionId) ?? this.ledger.remember(sessionId, this.statements.firstKeptSeq.get(sessionId)?.seq ?? undefined);
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
    this.ledger.trimmed(sessionId, throughSeq);
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
