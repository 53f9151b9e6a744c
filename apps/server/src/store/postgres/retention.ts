import type pg from 'pg';
import { applyEvent, createSessionState, toSnapshot, type SessionEvent, type SessionSnapshotData, type SessionState } from '@interthought/protocol';
import { stateBeforeFirstEvent } from '../../core/persistence/session-loader.js';
import { rowToInfo, type SessionRow } from '../sqlite/session-rows.js';
import { FIRST_KEPT_SEQ, GET_SESSION, READ_EVENTS, READ_SNAPSHOT } from './session-queries.js';

/** The longest an event log may grow past `keep` before it is trimmed, as a fraction of `keep`. */
const SLACK_FRACTION = 4;

/**
 * Keeps each session's log to its newest `keep` events, as the SQLite store's retention does:
 * over `keep + keep / 4`, the oldest events are folded into the session's snapshot with the
 * protocol reducer and deleted, in one transaction, so snapshot plus kept events is the whole session.
 */
export class PostgresRetention {
  private readonly slack: number;
  /** The lowest kept seq per session, so deciding to trim costs no query. */
  private readonly firstKept = new Map<string, number>();
  /** Sessions whose log cannot be folded; left whole instead of retried on every batch. */
  private readonly unfoldable = new Set<string>();

  constructor(
    private readonly pool: pg.Pool,
    readonly keep: number,
  ) {
    this.slack = Math.max(1, Math.floor(keep / SLACK_FRACTION));
  }

  /** After a committed batch: trim the touched sessions whose logs outgrew the limit (never undoing the append). */
  async afterAppend(lastSeqs: ReadonlyMap<string, number>): Promise<void> {
    for (const [sessionId, lastSeq] of lastSeqs) {
      if (this.unfoldable.has(sessionId)) continue;
      const firstKept = await this.firstKeptOf(sessionId);
      if (firstKept === undefined || lastSeq - firstKept + 1 <= this.keep + this.slack) continue;
      try {
        await this.trim(sessionId, lastSeq - this.keep);
      } catch (error) {
        this.unfoldable.add(sessionId);
        process.emitWarning(
          `Retention keeps every event of session ${sessionId}: its log could not be folded into a snapshot (${(error as Error).message}).`,
          { code: 'INTERTHOUGHT_RETENTION' },
        );
      }
    }
  }

  forget(sessionId: string): void {
    this.firstKept.delete(sessionId);
    this.unfoldable.delete(sessionId);
  }

  private async firstKeptOf(sessionId: string): Promise<number | undefined> {
    const cached = this.firstKept.get(sessionId);
    if (cached !== undefined) return cached;
    const { rows } = await this.pool.query<{ seq: number | null }>(FIRST_KEPT_SEQ, [sessionId]);
    const seq = rows[0]?.seq ?? undefined;
    if (seq !== undefined) this.firstKept.set(sessionId, seq);
    return seq;
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
    this.firstKept.set(sessionId, throughSeq + 1);
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
