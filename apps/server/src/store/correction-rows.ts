import type { CorrectionPage, CorrectionRecord } from '@interthought/protocol';
import type { CorrectionQuery, IndexedCorrection } from '../corrections/correction-index.js';
import { decodeCorrectionCursor, encodeCorrectionCursor, orderKey } from '../corrections/correction-order.js';

/*
 * The corrections table as the SQL stores keep it (SQLite and Postgres, the same columns): the row
 * of a record, and the page query with the §26.2 filters, in one place for both dialects.
 */

/** One row of the `corrections` table. */
export interface CorrectionRow {
  session_id: string;
  corrected_step_id: string;
  /** `orderKey(record)`: the list pages newest first on it. */
  order_key: string;
  at: string;
  /** The corrected session's owner: who sees the row. */
  owner_id: string | null;
  agent: string;
  model: string | null;
  kind: string;
  tool: string | null;
  by: string;
  /** The `CorrectionRecord`. */
  json: string;
}

export function correctionRow({ record, ownerId }: IndexedCorrection): CorrectionRow {
  return {
    session_id: record.sessionId,
    corrected_step_id: record.correctedStepId,
    order_key: orderKey(record),
    at: record.at,
    owner_id: ownerId ?? null,
    agent: record.agent,
    model: record.model ?? null,
    kind: record.kind,
    tool: record.tool ?? null,
    by: record.by,
    json: JSON.stringify(record),
  };
}

/** Binds a value to the statement and answers its placeholder (`?` for SQLite, `$n` for Postgres). */
export type Bind = (value: unknown) => string;

/**
 * `SELECT order_key, json` of the query's page, newest first, one row more than asked (it says
 * whether a next page exists). `keyValue`: the order key as the table stores it.
 */
export function correctionPageSql(query: CorrectionQuery, bind: Bind, keyValue: (key: string) => unknown = (key) => key): string {
  const where: string[] = [];
  const { filter, visibility } = query;
  if (query.before !== undefined) where.push(`order_key < ${bind(keyValue(decodeCorrectionCursor(query.before)))}`);
  if (query.excludeSession !== undefined) where.push(`session_id <> ${bind(query.excludeSession)}`);
  if (!visibility.all) {
    const owner = bind(visibility.ownerId ?? null);
    const sessionIds = visibility.sessionIds ?? [];
    const bySession = sessionIds.length > 0 ? `session_id IN (${sessionIds.map(bind).join(', ')})` : '1 = 0';
    where.push(`(owner_id = ${owner} OR ${bySession})`);
  }
  const equal: [string, string | undefined][] = [
    ['agent', filter.agent],
    ['model', filter.model],
    ['kind', filter.kind],
    ['tool', filter.tool],
    ['"by"', filter.user],
    ['session_id', filter.session],
  ];
  for (const [column, value] of equal) if (value !== undefined) where.push(`${column} = ${bind(value)}`);
  // `at` is toISOString() output; the filter may carry any offset, so compare as the same form.
  if (filter.since !== undefined) where.push(`at >= ${bind(new Date(filter.since).toISOString())}`);
  if (filter.until !== undefined) where.push(`at < ${bind(new Date(filter.until).toISOString())}`);
  return `SELECT order_key, json FROM corrections ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY order_key DESC LIMIT ${bind(query.limit + 1)}`;
}

/** The page of the rows `correctionPageSql` read. */
export function correctionPage(rows: readonly { order_key: string; json: string }[], limit: number): CorrectionPage {
  const page = rows.slice(0, limit);
  const corrections = page.map((row) => JSON.parse(row.json) as CorrectionRecord);
  const last = page[page.length - 1];
  return rows.length > limit && last !== undefined ? { corrections, nextCursor: encodeCorrectionCursor(last.order_key) } : { corrections };
}
