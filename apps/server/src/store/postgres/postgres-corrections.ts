import type pg from 'pg';
import type { CorrectionPage } from '@interthought/protocol';
import type { CorrectionQuery, IndexedCorrection } from '../../corrections/correction-index.js';
import type { StoredCorrections } from '../../corrections/stored-corrections.js';
import { correctionPage, correctionPageSql, correctionRow, type CorrectionRow } from '../correction-rows.js';

/** The `store_facts` row saying the index covers the whole log (as SQLite's). */
export const CORRECTIONS_BUILT = 'corrections-index-built';

/**
 * Insert or replace records, in one statement. A record written again (a retried batch, a rebuild
 * run by two nodes at once) replaces the stored one, so every write is idempotent. The order key
 * holds NUL separators, which a Postgres TEXT cannot: it is stored as its UTF-8 bytes, which sort
 * as SQLite's BINARY collation sorts the same key.
 */
const UPSERT = `
  INSERT INTO corrections (session_id, corrected_step_id, order_key, at, owner_id, agent, model, kind, tool, "by", json)
  SELECT * FROM unnest($1::text[], $2::text[], $3::bytea[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::text[], $11::text[])
  ON CONFLICT (session_id, corrected_step_id) DO UPDATE SET
    order_key = excluded.order_key, at = excluded.at, owner_id = excluded.owner_id, agent = excluded.agent, model = excluded.model,
    kind = excluded.kind, tool = excluded.tool, "by" = excluded."by", json = excluded.json`;

/** The order key as the table stores it. */
function keyBytes(key: string): Buffer {
  return Buffer.from(key, 'utf8');
}

/**
 * Write `records` on `client` (or the pool), inside the caller's transaction when it has one: the
 * append's, so a row exists exactly when the events that made it do. No round trip when empty.
 */
export async function writeCorrections(client: pg.ClientBase | pg.Pool, records: readonly IndexedCorrection[]): Promise<void> {
  if (records.length === 0) return;
  // One statement may not touch a row twice: of a step written twice in the batch, the last record stands.
  const rows = [...new Map(records.map((indexed) => [`${indexed.record.sessionId}\0${indexed.record.correctedStepId}`, correctionRow(indexed)])).values()];
  const column = <K extends keyof CorrectionRow>(name: K): CorrectionRow[K][] => rows.map((row) => row[name]);
  await client.query(UPSERT, [
    column('session_id'),
    column('corrected_step_id'),
    rows.map((row) => keyBytes(row.order_key)),
    column('at'),
    column('owner_id'),
    column('agent'),
    column('model'),
    column('kind'),
    column('tool'),
    column('by'),
    column('json'),
  ]);
}

/**
 * The Postgres store's index of corrections (PROTOCOL.md §26): the `corrections` table of the same
 * database, shared by every node on it. The appends write it in their transaction
 * (`writeCorrections`); a session's rows go with it (ON DELETE CASCADE).
 */
export class PostgresCorrections implements StoredCorrections {
  constructor(
    private readonly pool: pg.Pool,
    private readonly ensureOpen: () => void,
  ) {}

  async page(query: CorrectionQuery): Promise<CorrectionPage> {
    this.ensureOpen();
    const params: unknown[] = [];
    const sql = correctionPageSql(
      query,
      (value) => {
        params.push(value);
        return `$${params.length}`;
      },
      keyBytes,
    );
    const { rows } = await this.pool.query<{ order_key: Buffer; json: string }>(sql, params);
    return correctionPage(
      rows.map((row) => ({ order_key: row.order_key.toString('utf8'), json: row.json })),
      query.limit,
    );
  }

  async isBuilt(): Promise<boolean> {
    this.ensureOpen();
    const { rowCount } = await this.pool.query('SELECT 1 FROM store_facts WHERE name = $1', [CORRECTIONS_BUILT]);
    return (rowCount ?? 0) > 0;
  }

  async putRebuilt(records: readonly IndexedCorrection[]): Promise<void> {
    this.ensureOpen();
    await writeCorrections(this.pool, records);
  }

  async markBuilt(): Promise<void> {
    this.ensureOpen();
    await this.pool.query('INSERT INTO store_facts (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING', [CORRECTIONS_BUILT, new Date().toISOString()]);
  }
}
