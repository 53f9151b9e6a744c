import type { SessionRow } from '../sqlite/session-rows.js';

/** The sessions table's columns, as `SessionRow` names them (the same row shape as the SQLite store's). */
export const SESSION_COLUMNS =
  'id, task, agent, options, status, revision, created_at, updated_at, last_seq, error, detail, forked_from, owner_id, owner_name, usage, failure, model';

/** `$1…$17` in `SESSION_COLUMNS` order. */
export const INSERT_SESSION = `INSERT INTO sessions (${SESSION_COLUMNS})
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17)
  ON CONFLICT (id) DO NOTHING`;

export function insertParams(row: SessionRow): unknown[] {
  return [
    row.id, row.task, row.agent, row.options, row.status, row.revision, row.created_at, row.updated_at, row.last_seq,
    row.error, row.detail, row.forked_from, row.owner_id, row.owner_name, row.usage, row.failure, row.model,
  ];
}

/** `updateParams` order: id, status, revision, updated_at, error, detail, usage, failure. */
export const UPDATE_SESSION = `UPDATE sessions SET status = $2, revision = $3, updated_at = $4, error = $5, detail = $6, usage = $7, failure = $8
  WHERE id = $1`;

export const GET_SESSION = `SELECT ${SESSION_COLUMNS} FROM sessions WHERE id = $1`;

export const LIST_BY_STATUS = `SELECT ${SESSION_COLUMNS} FROM sessions WHERE status = $1 ORDER BY created_at, id`;

/**
 * A page newest first. `$1` owner (NULL: everyone's), `$2`/`$3` the cursor's (created_at, id)
 * (NULL: the first page), `$4` the row count. Row comparison keeps a cursor valid while sessions come and go.
 */
export const LIST_PAGE = `SELECT ${SESSION_COLUMNS} FROM sessions
  WHERE ($1::text IS NULL OR owner_id = $1) AND ($2::text IS NULL OR (created_at, id) < ($2, $3))
  ORDER BY created_at DESC, id DESC LIMIT $4`;

/** Events with `$2 < seq <= $3`, at most `$4` (NULL: no limit). */
export const READ_EVENTS = 'SELECT seq, json FROM events WHERE session_id = $1 AND seq > $2 AND seq <= $3 ORDER BY seq LIMIT $4';

export const FIRST_KEPT_SEQ = 'SELECT min(seq) AS seq FROM events WHERE session_id = $1';

export const READ_SNAPSHOT = 'SELECT seq, json FROM snapshots WHERE session_id = $1';
