import type pg from 'pg';
import type { SessionSnapshotData } from '@interthought/protocol';
import type { SessionRecord } from '../../core/persistence/event-store.js';
import { recordToInsert } from '../sqlite/session-rows.js';
import { INSERT_SESSION, insertParams } from './session-queries.js';

/** A session as another store holds it: its record, its snapshot if retention trimmed it, and its kept events' frames. */
export interface SessionLogCopy {
  record: SessionRecord;
  snapshot: SessionSnapshotData | undefined;
  /** The stored JSON of each kept event, in seq order. */
  frames: readonly string[];
}

/** Rows per INSERT: bounded statements however long a log is. */
const CHUNK = 1_000;

/**
 * Write a copied session in one transaction, idempotently (a re-run writes what is missing and
 * nothing twice): the row, the snapshot, the events, `last_seq` as the source has it, and the
 * summary columns from the source's record.
 */
export async function importSessionLog(client: pg.PoolClient, copy: SessionLogCopy): Promise<void> {
  const row = recordToInsert(copy.record, new Date().toISOString());
  const sessionId = row.id;
  await client.query('BEGIN');
  try {
    await client.query(INSERT_SESSION, insertParams({ ...row, last_seq: 0 }));
    if (copy.snapshot !== undefined) {
      await client.query(
        `INSERT INTO snapshots (session_id, seq, json) VALUES ($1, $2, $3)
         ON CONFLICT (session_id) DO UPDATE SET seq = excluded.seq, json = excluded.json`,
        [sessionId, copy.snapshot.seq, JSON.stringify(copy.snapshot)],
      );
    }
    for (let start = 0; start < copy.frames.length; start += CHUNK) {
      const frames = copy.frames.slice(start, start + CHUNK);
      const events = frames.map((frame) => JSON.parse(frame) as { seq: number; type: string });
      await client.query(
        `INSERT INTO events (session_id, seq, type, json)
         SELECT $1, e.seq, e.type, e.json FROM unnest($2::bigint[], $3::text[], $4::text[]) AS e (seq, type, json)
         ON CONFLICT (session_id, seq) DO NOTHING`,
        [sessionId, events.map((event) => event.seq), events.map((event) => event.type), frames],
      );
    }
    await client.query(
      `UPDATE sessions SET last_seq = GREATEST(last_seq, $2), status = $3, revision = $4, error = $5, detail = $6, usage = $7, failure = $8
       WHERE id = $1`,
      [sessionId, copy.record.lastSeq, row.status, row.revision, row.error, row.detail, row.usage, row.failure],
    );
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}

/** What the target holds of a session, to verify a copy: its last seq and how many events it keeps. */
export async function storedCounts(pool: pg.Pool, sessionId: string): Promise<{ lastSeq: number; events: number } | undefined> {
  const { rows } = await pool.query<{ last_seq: number; events: number }>(
    'SELECT last_seq, (SELECT count(*) FROM events WHERE session_id = $1) AS events FROM sessions WHERE id = $1',
    [sessionId],
  );
  return rows[0] ? { lastSeq: rows[0].last_seq, events: rows[0].events } : undefined;
}

/** Keep `value` as the key share links are signed with (the source's, so links made before the move still open). */
export async function importSharingKey(pool: pg.Pool, value: string): Promise<void> {
  await pool.query("INSERT INTO secrets (name, value) VALUES ('sharing-key', $1) ON CONFLICT (name) DO UPDATE SET value = excluded.value", [value]);
}
