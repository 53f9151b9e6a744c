import type Database from 'better-sqlite3';
import type { SessionInsert, SessionRow, SessionUpdate } from './session-rows.js';

/** A stored event's serialised form. */
export interface EventRow {
  seq: number;
  json: string;
}

export interface SnapshotRow {
  seq: number;
  json: string;
}

/** Every statement the store runs, prepared once when it opens. */
export interface Statements {
  insertSession: Database.Statement<SessionInsert>;
  updateSession: Database.Statement<SessionUpdate>;
  getSession: Database.Statement<[string], SessionRow>;
  lastSeq: Database.Statement<[string], { last_seq: number }>;
  setLastSeq: Database.Statement<[number, string]>;
  listFirstPage: Database.Statement<[number], SessionRow>;
  listAfterCursor: Database.Statement<[string, string, number], SessionRow>;
  listOwnersFirstPage: Database.Statement<[string, number], SessionRow>;
  listOwnersAfterCursor: Database.Statement<[string, string, string, number], SessionRow>;
  readSecret: Database.Statement<[string], { value: string }>;
  keepSecret: Database.Statement<[string, string]>;
  listByStatus: Database.Statement<[string], SessionRow>;
  deleteSession: Database.Statement<[string]>;
  insertEvent: Database.Statement<[string, number, string, string]>;
  /** Events with afterSeq < seq <= throughSeq, at most limit (-1: no limit). */
  readEvents: Database.Statement<[string, number, number, number], EventRow>;
  firstKeptSeq: Database.Statement<[string], { seq: number | null }>;
  deleteEventsThrough: Database.Statement<[string, number]>;
  deleteEvents: Database.Statement<[string]>;
  readSnapshot: Database.Statement<[string], SnapshotRow>;
  writeSnapshot: Database.Statement<[string, number, string]>;
  deleteSnapshot: Database.Statement<[string]>;
}

const SESSION_COLUMNS = 'id, task, agent, options, status, revision, created_at, updated_at, last_seq, error, detail, forked_from, owner_id, owner_name, usage, failure, model';

export function prepareStatements(db: Database.Database): Statements {
  return {
    insertSession: db.prepare<SessionInsert>(
      `INSERT INTO sessions (${SESSION_COLUMNS})
       VALUES (@id, @task, @agent, @options, @status, @revision, @created_at, @updated_at, @last_seq, @error, @detail, @forked_from, @owner_id, @owner_name, @usage, @failure, @model)`,
    ),
    updateSession: db.prepare<SessionUpdate>(
      `UPDATE sessions SET status = @status, revision = @revision, updated_at = @updated_at, error = @error, detail = @detail, usage = @usage, failure = @failure
       WHERE id = @id`,
    ),
    getSession: db.prepare<[string], SessionRow>(`SELECT ${SESSION_COLUMNS} FROM sessions WHERE id = ?`),
    lastSeq: db.prepare<[string], { last_seq: number }>('SELECT last_seq FROM sessions WHERE id = ?'),
    setLastSeq: db.prepare<[number, string]>('UPDATE sessions SET last_seq = ? WHERE id = ?'),
    listFirstPage: db.prepare<[number], SessionRow>(
      `SELECT ${SESSION_COLUMNS} FROM sessions ORDER BY created_at DESC, id DESC LIMIT ?`,
    ),
    listAfterCursor: db.prepare<[string, string, number], SessionRow>(
      `SELECT ${SESSION_COLUMNS} FROM sessions WHERE (created_at, id) < (?, ?) ORDER BY created_at DESC, id DESC LIMIT ?`,
    ),
    listOwnersFirstPage: db.prepare<[string, number], SessionRow>(
      `SELECT ${SESSION_COLUMNS} FROM sessions WHERE owner_id = ? ORDER BY created_at DESC, id DESC LIMIT ?`,
    ),
    listOwnersAfterCursor: db.prepare<[string, string, string, number], SessionRow>(
      `SELECT ${SESSION_COLUMNS} FROM sessions WHERE owner_id = ? AND (created_at, id) < (?, ?) ORDER BY created_at DESC, id DESC LIMIT ?`,
    ),
    readSecret: db.prepare<[string], { value: string }>('SELECT value FROM secrets WHERE name = ?'),
    keepSecret: db.prepare<[string, string]>('INSERT OR IGNORE INTO secrets (name, value) VALUES (?, ?)'),
    listByStatus: db.prepare<[string], SessionRow>(
      `SELECT ${SESSION_COLUMNS} FROM sessions WHERE status = ? ORDER BY created_at, id`,
    ),
    deleteSession: db.prepare<[string]>('DELETE FROM sessions WHERE id = ?'),
    insertEvent: db.prepare<[string, number, string, string]>('INSERT INTO events (session_id, seq, type, json) VALUES (?, ?, ?, ?)'),
    readEvents: db.prepare<[string, number, number, number], EventRow>(
      'SELECT seq, json FROM events WHERE session_id = ? AND seq > ? AND seq <= ? ORDER BY seq LIMIT ?',
    ),
    firstKeptSeq: db.prepare<[string], { seq: number | null }>('SELECT min(seq) AS seq FROM events WHERE session_id = ?'),
    deleteEventsThrough: db.prepare<[string, number]>('DELETE FROM events WHERE session_id = ? AND seq <= ?'),
    deleteEvents: db.prepare<[string]>('DELETE FROM events WHERE session_id = ?'),
    readSnapshot: db.prepare<[string], SnapshotRow>('SELECT seq, json FROM snapshots WHERE session_id = ?'),
    writeSnapshot: db.prepare<[string, number, string]>(
      `INSERT INTO snapshots (session_id, seq, json) VALUES (?, ?, ?)
       ON CONFLICT (session_id) DO UPDATE SET seq = excluded.seq, json = excluded.json`,
    ),
    deleteSnapshot: db.prepare<[string]>('DELETE FROM snapshots WHERE session_id = ?'),
  };
}
