import type Database from 'better-sqlite3';
import type { CorrectionPage } from '@interthought/protocol';
import type { CorrectionQuery, IndexedCorrection } from '../../corrections/correction-index.js';
import type { StoredCorrections } from '../../corrections/stored-corrections.js';
import { correctionPage, correctionPageSql, correctionRow } from '../correction-rows.js';

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
    for (const indexed of records) this.#insert.run(correctionRow(indexed));
  }

  /** Inside the caller's transaction. */
  removeSession(sessionId: string): void {
    this.#deleteSession.run(sessionId);
  }

  async page(query: CorrectionQuery): Promise<CorrectionPage> {
    this.ensureOpen();
    const params: unknown[] = [];
    const sql = correctionPageSql(query, (value) => {
      params.push(value);
      return '?';
    });
    const rows = this.db.prepare<unknown[], { order_key: string; json: string }>(sql).all(...params);
    return correctionPage(rows, query.limit);
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
