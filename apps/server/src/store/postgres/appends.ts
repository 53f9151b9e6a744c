import type pg from 'pg';
import type { SessionEvent, SessionInfo } from '@interthought/protocol';
import { EventStoreError } from '../../core/persistence/event-store.js';
import { infoToUpdate } from '../sqlite/session-rows.js';
import { UPDATE_SESSION } from './session-queries.js';
import type { IndexedCorrection } from '../../corrections/correction-index.js';
import { writeCorrections } from './postgres-corrections.js';

/** One session's share of a batch. */
interface SessionSpan {
  first: number;
  last: number;
}

/** Who may append: in cluster mode, only the holder of the session's current lease epoch. */
export interface AppendFence {
  epoch: number;
}

function checkShape(event: SessionEvent): void {
  if (typeof event?.sessionId !== 'string' || !Number.isSafeInteger(event.seq) || typeof event.type !== 'string') {
    throw new EventStoreError('BAD_EVENT', 'Every event needs a string sessionId and type and an integer seq; the batch was not written.');
  }
}

/** The event's stored form: the frame the core serialised once, or its own serialisation. */
function storedJson(event: SessionEvent, frame: string | undefined): string {
  checkShape(event);
  if (frame !== undefined) return frame;
  try {
    return JSON.stringify(event);
  } catch (error) {
    throw new EventStoreError('BAD_EVENT', `Event ${event.seq} of session ${event.sessionId} cannot be serialised (${(error as Error).message}); the batch was not written.`);
  }
}

/**
 * Moves each session's `last_seq` from `first - 1` to `last` (and, fenced, only while its epoch is
 * the writer's) and inserts exactly the events of the sessions it moved, in one statement: the
 * check, the log and the counter can never disagree, even without the surrounding transaction.
 */
const MOVE_AND_INSERT = `
  WITH moved AS (
    UPDATE sessions AS s SET last_seq = span.last
    FROM unnest($1::text[], $2::bigint[], $3::bigint[]) AS span (id, first, last)
    WHERE s.id = span.id AND s.last_seq = span.first - 1 AND ($8::bigint IS NULL OR s.epoch = $8)
    RETURNING s.id
  )
  INSERT INTO events (session_id, seq, type, json)
  SELECT e.session_id, e.seq, e.type, e.json
  FROM unnest($4::text[], $5::bigint[], $6::text[], $7::text[]) AS e (session_id, seq, type, json)
  WHERE e.session_id IN (SELECT id FROM moved)
  RETURNING (SELECT count(*) FROM moved) AS moved`;

/** Run `MOVE_AND_INSERT`; false when some session was not moved (unknown, fenced or not continued). */
async function moveAndInsert(
  client: pg.PoolClient,
  events: readonly SessionEvent[],
  jsons: readonly string[],
  spans: ReadonlyMap<string, SessionSpan>,
  fence: AppendFence | undefined,
): Promise<boolean> {
  const ids = [...spans.keys()];
  const { rows } = await client.query<{ moved: number }>(MOVE_AND_INSERT, [
    ids,
    ids.map((id) => spans.get(id)!.first),
    ids.map((id) => spans.get(id)!.last),
    events.map((event) => event.sessionId),
    events.map((event) => event.seq),
    events.map((event) => event.type),
    jsons,
    fence?.epoch ?? null,
  ]);
  return Number(rows[0]?.moved ?? 0) === ids.length && rows.length === events.length;
}

/** Each session's seq span, or undefined when a session's seqs within the batch are not one by one. */
function spansOf(events: readonly SessionEvent[]): Map<string, SessionSpan> | undefined {
  const spans = new Map<string, SessionSpan>();
  for (const event of events) {
    const span = spans.get(event.sessionId);
    if (span === undefined) spans.set(event.sessionId, { first: event.seq, last: event.seq });
    else if (event.seq !== span.last + 1) return undefined;
    else span.last = event.seq;
  }
  return spans;
}

/**
 * Write the batch in one transaction on `client`, or nothing. Returns each touched session's new
 * last seq. A refusal says why as the other stores do: the first event, in batch order, whose
 * session is unknown, fenced, or whose seq does not continue its log.
 */
export async function appendInTransaction(
  client: pg.PoolClient,
  events: readonly SessionEvent[],
  frames: readonly string[],
  summaries: readonly SessionInfo[],
  fence?: AppendFence,
  corrections: readonly IndexedCorrection[] = [],
): Promise<Map<string, number>> {
  // Everything is checked and serialised before the first statement, so a refusal sends nothing.
  const useFrames = frames.length === events.length;
  const jsons = events.map((event, index) => storedJson(event, useFrames ? frames[index] : undefined));
  const spans = spansOf(events);
  await client.query('BEGIN');
  let refused = false;
  try {
    if (events.length > 0) {
      refused = spans === undefined || !(await moveAndInsert(client, events, jsons, spans, fence));
      if (refused) throw new Error('refused');
    }
    const at = new Date().toISOString();
    for (const info of summaries) {
      const { rowCount } = await client.query(UPDATE_SESSION, updateParams(info, at));
      if (rowCount === 0) throw notFound(info.sessionId);
    }
    await writeCorrections(client, corrections);
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    // Said only after the rollback: the walk must see the logs as they are, not as this statement half-moved them.
    if (refused) throw await refusal(client, events, fence);
    throw error;
  }
  return new Map([...(spans ?? new Map<string, SessionSpan>())].map(([id, span]) => [id, span.last]));
}

/** The parameters of `UPDATE_SESSION`, in order. */
export function updateParams(info: SessionInfo, at: string): unknown[] {
  const row = infoToUpdate(info, at);
  return [row.id, row.status, row.revision, row.updated_at, row.error, row.detail, row.usage, row.failure];
}

export function notFound(sessionId: string): EventStoreError {
  return new EventStoreError('SESSION_NOT_FOUND', `Session ${sessionId} is not in the store; create it before writing to it.`);
}

/** Why the batch was refused, found by walking it against the stored logs in batch order. */
async function refusal(client: pg.PoolClient, events: readonly SessionEvent[], fence: AppendFence | undefined): Promise<EventStoreError> {
  const ids = [...new Set(events.map((event) => event.sessionId))];
  const { rows } = await client.query<{ id: string; last_seq: number; epoch: number }>('SELECT id, last_seq, epoch FROM sessions WHERE id = ANY($1::text[])', [ids]);
  const stored = new Map(rows.map((row) => [row.id, row]));
  const lasts = new Map<string, number>();
  for (const event of events) {
    const row = stored.get(event.sessionId);
    if (!row) return notFound(event.sessionId);
    if (fence !== undefined && row.epoch !== fence.epoch) {
      return new EventStoreError('FENCED', `Session ${event.sessionId} is owned at epoch ${row.epoch}, not ${fence.epoch}: another node took it over; the batch was not written.`);
    }
    const last = lasts.get(event.sessionId) ?? row.last_seq;
    if (event.seq !== last + 1) {
      return new EventStoreError('SEQ_NOT_CONTIGUOUS', `Session ${event.sessionId}: event seq ${event.seq} does not follow seq ${last}; the batch was not written.`);
    }
    lasts.set(event.sessionId, event.seq);
  }
  // Another writer moved the log between the statement and this look (cannot happen under the row locks the statement took, but never answer "fine").
  return new EventStoreError('SEQ_NOT_CONTIGUOUS', `The batch no longer continues the stored logs of ${ids.join(', ')}; the batch was not written.`);
}
