import type pg from 'pg';
import type { SessionEvent } from '@interthought/protocol';
import { spansOf, storedJson } from './appends.js';

/**
 * A batch of events alone (no summaries, no corrections, unfenced) as ONE statement outside any
 * transaction block: one round trip instead of BEGIN, statement, COMMIT, so a group commit costs
 * one round trip and one WAL flush. All or nothing on its own: `ready` locks every session of the
 * batch whose log the batch continues, and `moved` moves them only when that is all of them.
 * (Under READ COMMITTED a lock taken after another writer's commit re-reads the row, so `ready`
 * sees the latest last_seq.) The events are inserted for exactly the sessions moved.
 */
const APPEND_EVENTS = `
  WITH span AS (
    SELECT * FROM unnest($1::text[], $2::bigint[], $3::bigint[]) AS span (id, first, last)
  ), ready AS (
    SELECT s.id FROM sessions AS s JOIN span ON s.id = span.id
    WHERE s.last_seq = span.first - 1
    FOR UPDATE OF s
  ), moved AS (
    UPDATE sessions AS s SET last_seq = span.last
    FROM span
    WHERE s.id = span.id AND (SELECT count(*) FROM ready) = cardinality($1::text[])
    RETURNING s.id
  ), inserted AS (
    INSERT INTO events (session_id, seq, type, json)
    SELECT e.session_id, e.seq, e.type, e.json
    FROM unnest($4::text[], $5::bigint[], $6::text[], $7::text[]) AS e (session_id, seq, type, json)
    WHERE e.session_id IN (SELECT id FROM moved)
    RETURNING 1
  )
  SELECT (SELECT count(*) FROM moved) AS moved, (SELECT count(*) FROM inserted) AS inserted`;

/**
 * Write `events` in one statement; each session's new last seq, or undefined when nothing was
 * written (a session unknown or not continued, or seqs out of order within the batch): the caller
 * then takes the transaction path, which says why.
 */
export async function appendEventsInOneStatement(
  client: pg.ClientBase | pg.Pool,
  events: readonly SessionEvent[],
  frames: readonly string[],
): Promise<Map<string, number> | undefined> {
  const useFrames = frames.length === events.length;
  const jsons = events.map((event, index) => storedJson(event, useFrames ? frames[index] : undefined));
  const spans = spansOf(events);
  if (spans === undefined) return undefined;
  const ids = [...spans.keys()];
  const { rows } = await client.query<{ moved: number; inserted: number }>(APPEND_EVENTS, [
    ids,
    ids.map((id) => spans.get(id)!.first),
    ids.map((id) => spans.get(id)!.last),
    events.map((event) => event.sessionId),
    events.map((event) => event.seq),
    events.map((event) => event.type),
    jsons,
  ]);
  const moved = Number(rows[0]?.moved ?? 0);
  if (moved === 0) return undefined;
  // The guard moves all or none; anything else would be a broken statement, never a quiet half write.
  if (moved !== ids.length || Number(rows[0]?.inserted) !== events.length) {
    throw new Error(`The one-statement append moved ${moved} of ${ids.length} sessions and wrote ${String(rows[0]?.inserted)} of ${events.length} events.`);
  }
  return new Map(ids.map((id) => [id, spans.get(id)!.last]));
}
