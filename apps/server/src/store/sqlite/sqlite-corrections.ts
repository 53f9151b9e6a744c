import type Database from 'better-sqlite3';
import type { CorrectionPage, CorrectionRecord } from '@interthought/protocol';
import type { CorrectionQuery, IndexedCorrection } from '../../corrections/correction-index.js';
import { decodeCorrectionCursor, encodeCorrectionCursor, orderKey } from '../../corrections/correction-order.js';
import type { StoredCorrections } from '../../corrections/stored-corrections.js';

/** The `store_facts` row saying the index covers the whole log. */
const BUILT = 'corrections-index-built';

/**
 * The SQLite store's index of corrections: the `corrections` table of the same file. `write` runs
 * inside the store's append transaction, `removeSession` inside its deletion's, so a row exists
 * exactly when the events that made it do.
 */
export class SqliteCorrections implements StoredCorrections {
  readonly #insert: Database.Statement;
  readonly #deleteSession: Database.Statement<[string]>;
  readonly #built: Database.Statement<[string], { value: string }>;
  readonly #markBuilt: Database.Statement<[string, string]>;

  constructor(
    private readonly db: Database.Database,
    private readonly ensureOpen: () => void,
  ) {
    this.#insert = db.prepare(
      `INSERT OR REPLACE INTO corrections (session_id, corrected_step_id, order_key, at, owner_id, agent, model, kind, tool, by, json)
       VALUES (@session_id, @corrected_step_id, @order_key, @at, @owner_id, @agent, @model, @kind, @tool, @by, @json)`,
    );
    this.#deleteSession = db.prepare('DELETE FROM corrections WHERE session_id = ?');
    this.#built = db.prepare('SELECT value FROM store_facts WHERE name = ?');
    this.#markBuilt = db.prepare('INSERT OR REPLACE INTO store_facts (name, value) VALUES (?, ?)');
  }

  /** Inside the caller's transaction. */
  write(records: readonly IndexedCorrection[]): void {
    for (const { record, ownerId } of records) {
      this.#insert.run({
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
      });
    }
  }

  /** Inside the caller's transaction. */
  removeSession(sessionId: string): void {
    this.#deleteSession.run(sessionId);
  }

  async page(query: CorrectionQuery): Promise<CorrectionPage> {
    this.ensureOpen();
    const where: string[] = [];
    const params: unknown[] = [];
    const add = (clause: string, ...values: unknown[]): void => {
      where.push(clause);
      params.push(...values);
    };
    const { filter, visibility } = query;
    if (query.before !== undefined) add('order_key < ?', decodeCorrectionCursor(query.before));
    if (query.excludeSession !== undefined) add('session_id <> ?', query.excludeSession);
    if (!visibility.all) {
      const sessionIds = visibility.sessionIds ?? [];
      const bySession = sessionIds.length > 0 ? `session_id IN (${sessionIds.map(() => '?').join(', ')})` : '0';
      add(`(owner_id = ? OR ${bySession})`, visibility.ownerId ?? null, ...sessionIds);
    }
    if (filter.agent !== undefined) add('agent = ?', filter.agent);
    if (filter.model !== undefined) add('model = ?', filter.model);
    if (filter.kind !== undefined) add('kind = ?', filter.kind);
    if (filter.tool !== undefined) add('tool = ?', filter.tool);
    if (filter.user !== undefined) add('by = ?', filter.user);
    if (filter.session !== undefined) add('session_id = ?', filter.session);
    // `at` is toISOString() output; the filter may carry any offset, so compare as the same form.
    if (filter.since !== undefined) add('at >= ?', new Date(filter.since).toISOString());
    if (filter.until !== undefined) add('at < ?', new Date(filter.until).toISOString());
    const sql = `SELECT order_key, json FROM corrections ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY order_key DESC LIMIT ?`;
    // One row more than asked says whether a next page exists.
    const rows = this.db.prepare<unknown[], { order_key: string; json: string }>(sql).all(...params, query.limit + 1);
    const page = rows.slice(0, query.limit);
    const corrections = page.map((row) => JSON.parse(row.json) as CorrectionRecord);
    const last = page[page.length - 1];
    return rows.length > query.limit && last !== undefined ? { corrections, nextCursor: encodeCorrectionCursor(last.order_key) } : { corrections };
  }

  async isBuilt(): Promise<boolean> {
    this.ensureOpen();
    return this.#built.get(BUILT) !== undefined;
  }

  async putRebuilt(records: readonly IndexedCorrection[]): Promise<void> {
    this.ensureOpen();
    this.db.transaction(() => this.write(records))();
  }

  async markBuilt(): Promise<void> {
    this.ensureOpen();
    this.#markBuilt.run(BUILT, new Date().toISOString());
  }
}
