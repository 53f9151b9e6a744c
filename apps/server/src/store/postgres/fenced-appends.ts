import type pg from 'pg';
import type { SessionInfo } from '@interthought/protocol';
import { EventStoreError } from '../../core/persistence/event-store.js';
import type { IndexedCorrection } from '../../corrections/correction-index.js';
import { notFound, updateParams } from './appends.js';
import { writeCorrections } from './postgres-corrections.js';
import { UPDATE_SESSION } from './session-queries.js';

/** One session's part of a cluster node's batch, with the epoch it is fenced with (undefined: unfenced). */
export interface FencedSessionPart {
  sessionId: string;
  /** The seq of `frames[0]`; 0 when the session has only a summary in the batch. */
  firstSeq: number;
  frames: readonly string[];
  /** `types[i]` is the type of the event `frames[i]` holds. */
  types: readonly string[];
  summary: SessionInfo | undefined;
  /** The corrections its events make: indexed in the same transaction, only when the part is written. */
  corrections: readonly IndexedCorrection[];
  epoch: number | undefined;
}

/** What became of one session's part: written (its log now ends at `lastSeq`; 0 for a summary alone), or refused and nothing of it written. */
export type PartOutcome = { status: 'written'; lastSeq: number } | { status: 'refused'; error: EventStoreError };

/**
 * Moves the `last_seq` of each session whose stored epoch is the one its part is fenced with (or
 * that is unfenced) and whose log the part continues, and inserts exactly the events of the
 * sessions it moved: the fence, the log and the counter are one statement, so they never disagree.
 * Answers the ids it moved.
 */
const MOVE_AND_INSERT_EACH = `
  WITH span AS (
    SELECT * FROM unnest($1::text[], $2::bigint[], $3::bigint[], $4::bigint[]) AS span (id, first, last, epoch)
  ), moved AS (
    UPDATE sessions AS s SET last_seq = span.last
    FROM span
    WHERE s.id = span.id AND s.last_seq = span.first - 1 AND (span.epoch IS NULL OR s.epoch = span.epoch)
    RETURNING s.id
  ), inserted AS (
    INSERT INTO events (session_id, seq, type, json)
    SELECT e.session_id, e.seq, e.type, e.json
    FROM unnest($5::text[], $6::bigint[], $7::text[], $8::text[]) AS e (session_id, seq, type, json)
    WHERE e.session_id IN (SELECT id FROM moved)
  )
  SELECT id FROM moved`;

/** `UPDATE_SESSION`, only while the session's epoch is `$9` (NULL: unfenced). */
const UPDATE_SESSION_FENCED = `${UPDATE_SESSION} AND ($9::bigint IS NULL OR epoch = $9)`;

function lastSeqOf(part: FencedSessionPart): number {
  return part.frames.length === 0 ? 0 : part.firstSeq + part.frames.length - 1;
}

async function moveAndInsertEach(client: pg.PoolClient, parts: readonly FencedSessionPart[]): Promise<Set<string>> {
  const events = parts.flatMap((part) => part.frames.map((json, index) => ({ id: part.sessionId, seq: part.firstSeq + index, type: part.types[index]!, json })));
  const { rows } = await client.query<{ id: string }>(MOVE_AND_INSERT_EACH, [
    parts.map((part) => part.sessionId),
    parts.map((part) => part.firstSeq),
    parts.map(lastSeqOf),
    parts.map((part) => part.epoch ?? null),
    events.map((event) => event.id),
    events.map((event) => event.seq),
    events.map((event) => event.type),
    events.map((event) => event.json),
  ]);
  return new Set(rows.map((row) => row.id));
}

/**
 * Why a part was not moved: its session is unknown, fenced (another node's epoch), or its events
 * are already there (a batch retried after its commit's answer was lost: written, not refused),
 * or they do not continue the log.
 */
async function outcomeOfUnmoved(client: pg.PoolClient, part: FencedSessionPart): Promise<PartOutcome> {
  const { sessionId } = part;
  const { rows } = await client.query<{ last_seq: number; epoch: number }>('SELECT last_seq, epoch FROM sessions WHERE id = $1', [sessionId]);
  const row = rows[0];
  if (row === undefined) return { status: 'refused', error: notFound(sessionId) };
  if (part.epoch !== undefined && row.epoch !== part.epoch) {
    return { status: 'refused', error: new EventStoreError('FENCED', `Session ${sessionId} is owned at epoch ${row.epoch}, not ${part.epoch}: another node took it over; nothing of its part was written.`) };
  }
  const last = lastSeqOf(part);
  if (part.frames.length > 0 && row.last_seq >= last) {
    const stored = await client.query<{ json: string }>('SELECT json FROM events WHERE session_id = $1 AND seq BETWEEN $2 AND $3 ORDER BY seq', [sessionId, part.firstSeq, last]);
    if (stored.rows.length === part.frames.length && stored.rows.every((event, index) => event.json === part.frames[index])) return { status: 'written', lastSeq: last };
  }
  if (part.frames.length === 0) return { status: 'refused', error: new EventStoreError('FENCED', `Session ${sessionId}'s summary was not written: its row changed owner meanwhile.`) };
  return {
    status: 'refused',
    error: new EventStoreError('SEQ_NOT_CONTIGUOUS', `Session ${sessionId}: event seq ${part.firstSeq} does not follow seq ${row.last_seq}; nothing of its part was written.`),
  };
}

/**
 * A cluster node's batch in one transaction on `client`, answered per session: each session's
 * part is written only while its stored epoch is the part's (checked in the statement that
 * inserts its events and moves its `last_seq`, and in its summary's update), its corrections
 * indexed with it; a part refused
 * leaves its session untouched while the others are written. Throws (and writes nothing) only
 * when the transaction itself fails.
 */
export async function appendSessionsInTransaction(client: pg.PoolClient, parts: readonly FencedSessionPart[]): Promise<Map<string, PartOutcome>> {
  const outcomes = new Map<string, PartOutcome>();
  await client.query('BEGIN');
  try {
    const withEvents = parts.filter((part) => part.frames.length > 0);
    const moved = withEvents.length === 0 ? new Set<string>() : await moveAndInsertEach(client, withEvents);
    for (const part of parts) {
      if (moved.has(part.sessionId)) outcomes.set(part.sessionId, { status: 'written', lastSeq: lastSeqOf(part) });
      else if (part.frames.length > 0) outcomes.set(part.sessionId, await outcomeOfUnmoved(client, part));
    }
    const at = new Date().toISOString();
    for (const part of parts) {
      if (part.summary === undefined || outcomes.get(part.sessionId)?.status === 'refused') continue;
      const { rowCount } = await client.query(UPDATE_SESSION_FENCED, [...updateParams(part.summary, at), part.epoch ?? null]);
      // Its events just moved under the same row lock and epoch: a summary refused now would half-write the part.
      if (rowCount === 0 && moved.has(part.sessionId)) throw new Error(`The summary of session ${part.sessionId} was refused after its events were written; the batch was rolled back.`);
      if (rowCount === 0) outcomes.set(part.sessionId, await outcomeOfUnmoved(client, { ...part, frames: [] }));
      else if (!outcomes.has(part.sessionId)) outcomes.set(part.sessionId, { status: 'written', lastSeq: 0 });
    }
    await writeCorrections(client, parts.filter((part) => outcomes.get(part.sessionId)?.status === 'written').flatMap((part) => part.corrections));
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
  return outcomes;
}
