import type { FailureReason, Origin, SessionInfo, SessionOptions, SessionStatus, SessionUsage } from '@interthought/protocol';
import type { SessionPage, SessionRecord } from '../../core/persistence/event-store.js';
import { badListCursor } from '../../core/session-error.js';

/** A row of the `sessions` table, as better-sqlite3 returns it. */
export interface SessionRow {
  id: string;
  task: string;
  agent: string;
  options: string;
  status: string;
  revision: number;
  created_at: string;
  updated_at: string;
  last_seq: number;
  error: string | null;
  detail: string | null;
  /** JSON of `SessionInfo.forkedFrom`: fixed when the session is created, never updated. */
  forked_from: string | null;
  /** `SessionInfo.owner`: fixed when the session is created, never updated. */
  owner_id: string | null;
  owner_name: string | null;
  /** JSON of `SessionInfo.usage`, the session's totals (PROTOCOL.md §22.4). */
  usage: string | null;
  /** `SessionInfo.failure`. */
  failure: string | null;
  /** `SessionInfo.model`: fixed when the session is created, never updated. */
  model: string | null;
}

/** The columns written by `createSession` (named parameters): a whole row. */
export type SessionInsert = SessionRow;

/** The columns written by `updateSession` (named parameters). */
export type SessionUpdate = Pick<SessionInsert, 'id' | 'status' | 'revision' | 'updated_at' | 'error' | 'detail' | 'usage' | 'failure'>;

export function rowToInfo(row: SessionRow): SessionInfo {
  const info: SessionInfo = {
    sessionId: row.id,
    task: row.task,
    agent: row.agent,
    // Written only from SessionInfo.status, which the protocol schema constrains.
    status: row.status as SessionStatus,
    revision: row.revision,
    createdAt: row.created_at,
  };
  if (row.error !== null) info.error = row.error;
  if (row.detail !== null) info.detail = row.detail;
  if (row.forked_from !== null) info.forkedFrom = JSON.parse(row.forked_from) as Origin;
  if (row.owner_id !== null) info.owner = { id: row.owner_id, name: row.owner_name ?? row.owner_id };
  if (row.usage !== null) info.usage = JSON.parse(row.usage) as SessionUsage;
  // Written only from SessionInfo.failure, which the protocol schema constrains.
  if (row.failure !== null) info.failure = row.failure as FailureReason;
  if (row.model !== null) info.model = row.model;
  return info;
}

export function rowToRecord(row: SessionRow): SessionRecord {
  return { info: rowToInfo(row), options: JSON.parse(row.options) as SessionOptions, lastSeq: row.last_seq };
}

export function recordToInsert(record: SessionRecord, now: string): SessionInsert {
  const { info } = record;
  return {
    id: info.sessionId,
    task: info.task,
    agent: info.agent,
    options: JSON.stringify(record.options ?? {}),
    status: info.status,
    revision: info.revision,
    created_at: info.createdAt,
    updated_at: now,
    last_seq: record.lastSeq,
    error: info.error ?? null,
    detail: info.detail ?? null,
    forked_from: info.forkedFrom === undefined ? null : JSON.stringify(info.forkedFrom),
    owner_id: info.owner?.id ?? null,
    owner_name: info.owner?.name ?? null,
    usage: info.usage === undefined ? null : JSON.stringify(info.usage),
    failure: info.failure ?? null,
    model: info.model ?? null,
  };
}

export function infoToUpdate(info: SessionInfo, now: string): SessionUpdate {
  return {
    id: info.sessionId,
    status: info.status,
    revision: info.revision,
    updated_at: now,
    error: info.error ?? null,
    detail: info.detail ?? null,
    usage: info.usage === undefined ? null : JSON.stringify(info.usage),
    failure: info.failure ?? null,
  };
}

/** Where a page of the newest-first list stopped: the last session's (created_at, id). */
export interface ListCursor {
  createdAt: string;
  id: string;
}

/** Opaque to callers; base64url so it travels in a query string as is. */
export function encodeCursor(row: Pick<SessionRow, 'created_at' | 'id'>): string {
  return Buffer.from(JSON.stringify([row.created_at, row.id]), 'utf8').toString('base64url');
}

export function decodeCursor(cursor: string): ListCursor {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    parsed = undefined;
  }
  // Only the spelling encodeCursor writes: a lenient decode (padding bits, skipped characters,
  // JSON whitespace) would give one position many cursors.
  if (Array.isArray(parsed) && parsed.length === 2 && typeof parsed[0] === 'string' && typeof parsed[1] === 'string') {
    if (encodeCursor({ created_at: parsed[0], id: parsed[1] }) === cursor) return { createdAt: parsed[0], id: parsed[1] };
  }
  throw badListCursor(cursor);
}

/** A page of sessions from rows fetched one beyond `limit`: that extra row says a next page exists, and the page's last row is its cursor. */
export function pageOfRows(rows: readonly SessionRow[], limit: number): SessionPage {
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  const sessions = page.map(rowToInfo);
  return rows.length > limit && last ? { sessions, nextCursor: encodeCursor(last) } : { sessions };
}
