import type { CorrectionRecord } from '@interthought/protocol';
import { CorrectionCursorError, type CorrectionQuery, type IndexedCorrection } from './correction-index.js';

/*
 * The index's order and filters, as every store without a query language applies them (memory,
 * Redis); the SQLite store says the same in SQL.
 */

/**
 * A record's place in the index: `<at>\0<sessionId>\0<correctedStepId>`, newest first when sorted
 * descending. Timestamps are `toISOString()` output, one length, so bytes sort as time does.
 */
export function orderKey(record: Pick<CorrectionRecord, 'at' | 'sessionId' | 'correctedStepId'>): string {
  return `${record.at}\0${record.sessionId}\0${record.correctedStepId}`;
}

/** Opaque to callers; base64url so it travels in a query string as is. */
export function encodeCorrectionCursor(key: string): string {
  return Buffer.from(key, 'utf8').toString('base64url');
}

/** The order key a `nextCursor` stands for; `CorrectionCursorError` when it is not one. */
export function decodeCorrectionCursor(cursor: string): string {
  const key = Buffer.from(cursor, 'base64url').toString('utf8');
  if (key.split('\0').length !== 3 || encodeCorrectionCursor(key) !== cursor) {
    throw new CorrectionCursorError(`"before" must be a nextCursor of GET /api/corrections; "${cursor.slice(0, 40)}" is not one.`);
  }
  return key;
}

/** Whether the reader of `query` sees this correction and it passes every filter. */
export function matchesQuery(indexed: IndexedCorrection, query: Omit<CorrectionQuery, 'limit' | 'before'>): boolean {
  const { record } = indexed;
  const { filter, visibility } = query;
  if (query.excludeSession !== undefined && record.sessionId === query.excludeSession) return false;
  if (!visibility.all) {
    const owned = visibility.ownerId !== undefined && indexed.ownerId === visibility.ownerId;
    if (!owned && !(visibility.sessionIds ?? []).includes(record.sessionId)) return false;
  }
  if (filter.agent !== undefined && record.agent !== filter.agent) return false;
  if (filter.model !== undefined && record.model !== filter.model) return false;
  if (filter.kind !== undefined && record.kind !== filter.kind) return false;
  if (filter.tool !== undefined && record.tool !== filter.tool) return false;
  if (filter.user !== undefined && record.by !== filter.user) return false;
  if (filter.session !== undefined && record.sessionId !== filter.session) return false;
  const at = Date.parse(record.at);
  if (filter.since !== undefined && at < Date.parse(filter.since)) return false;
  if (filter.until !== undefined && at >= Date.parse(filter.until)) return false;
  return true;
}
