import type pg from 'pg';
import { applyEvent, createSessionState, toSnapshot, type SessionEvent, type SessionSnapshotData, type SessionState } from '@interthought/protocol';
import { stateBeforeFirstEvent } from '../../core/persistence/session-loader.js';
import { rowToInfo, type SessionRow } from '../sqlite/session-rows.js';
import { RetentionLedger } from '../retention-ledger.js';
import { FIRST_KEPT_SEQ, GET_SESSION, READ_EVENTS, READ_SNAPSHOT } from './session-queries.js';

/**
 * Keeps each session's log to its newest `keep` events, by the rule the SQLite store follows too
 * (`RetentionLedger`): the oldest events are folded into the session's snapshot with the protocol
 * reducer and deleted, in one transaction, so snapshot plus kept events is the whole session.
 */
export class PostgresRetention {
  private readonly ledger: RetentionLedger;

  constructor(
    private readonly pool: pg.Pool,
    readonly keep: number,
  ) {
    this.ledger = new RetentionLedger(keep);
  }

  /** After a committed batch: trim the touched sessions whose logs outgrew the limit (never undoing the append). */
  async afterAppend(lastSeqs: ReadonlyMap<string, number>): Promise<void> {
    for (const [sessionId, lastSeq] of lastSeqs) {
      if (this.ledger.skips(sessionId)) continue;
      const throughSeq = this.ledger.trimThrough(await this.firstKeptOf(sessionId), lastSeq);
      if (throughSeq === undefined) continue;
      try {
        await this.trim(sessionId, throughSeq);
      } catch (error) {
        this.ledger.failed(sessionId, error);
      }
    }
  }

  forget(sessionId: string): void {
    this.ledger.forget(sessionId);
  }

  private async firstKeptOf(sessionId: string): Promise<number | undefined> {
    const known = this.ledger.known(sessionId);
    if (known !== undefined) return known;
    const { rows } = await this.pool.query<{ seq: number | null }>(FIRST_KEPT_SEQ, [sessionId]);
    return this.ledger.remember(sessionId, rows[0]?.seq ?? undefined);
  }

  private async trim(sessionId: string, throughSeq: number): Promise<void> {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      try {
        const state = await stateBeforeKeptEvents(client, sessionId);
        const { rows } = await client.query<{ json: string }>(READ_EVENTS, [sessionId, state.seq, throughSeq, null]);
        for (const row of rows) applyEvent(state, JSON.parse(row.json) as SessionEvent);
        const snapshot: SessionSnapshotData = toSnapshot(state);
        await client.query(
          `INSERT INTO snapshots (session_id, seq, json) VALUES ($1, $2, $3)
           ON CONFLICT (session_id) DO UPDATE SET seq = excluded.seq, json = excluded.json`,
          [sessionId, snapshot.seq, JSON.stringify(snapshot)],
        );
        await client.query('DELETE FROM events WHERE session_id = $1 AND seq <= $2', [sessionId, throughSeq]);
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      }
    } finally {
      client.release();
    }
    this.ledger.trimmed(sessionId, throughSeq);
  }
}

/** The state the kept events apply to: the stored snapshot, or before the first trim the session as its first event finds it. */
async function stateBeforeKeptEvents(client: pg.PoolClient, sessionId: string): Promise<SessionState> {
  const snapshot = await client.query<{ json: string }>(READ_SNAPSHOT, [sessionId]);
  const stored = snapshot.rows[0];
  if (stored) return createSessionState(JSON.parse(stored.json) as SessionSnapshotData);
  const session = await client.query<SessionRow>(GET_SESSION, [sessionId]);
  const row = session.rows[0];
  if (!row) throw new Error(`session ${sessionId} has events but no session row`);
  return stateBeforeFirstEvent(rowToInfo(row));
}
