import { describe, expect, it } from 'vitest';
import { buildCorrectionIndex } from '../../src/corrections/correction-index-start.js';
import { POSTGRES_MIGRATIONS } from '../../src/store/postgres/migrations.js';
import { openPostgresEventStore, type PostgresEventStore } from '../../src/store/postgres/postgres-event-store.js';
import { runAsAdmin } from '../support/postgres-server.js';
import { usePostgresServer } from '../support/postgres-scope.js';
import { batchOf, sessionLog, sessionRecord } from './store-fixtures.js';

const postgres = usePostgresServer();

/** Sessions whose logs hold corrections (every third round of `sessionLog` corrects a step). */
const LENGTHS: Record<string, number> = { a: 40, b: 25, c: 3 };

/** A database as Interthought before the index left it (schema version 1), with corrected sessions in it. */
async function databaseFromBeforeTheIndex(): Promise<string> {
  const url = await postgres.current.createSchema();
  const store = await openPostgresEventStore({ url });
  for (const [sessionId, length] of Object.entries(LENGTHS)) {
    await store.createSession(sessionRecord(sessionId));
    // No `corrections` in the batches: the index is empty, as version 1 had none.
    await store.appendBatch(batchOf(sessionLog(sessionId, length)));
  }
  await store.close();
  // Back to version 1: what migrations 2 (the index) and 3 (the cluster's run owner) added is gone.
  await runAsAdmin(url, 'DROP TABLE corrections; DROP TABLE store_facts; ALTER TABLE sessions DROP COLUMN run_owner; DELETE FROM interthought_schema_versions WHERE version > 1');
  return url;
}

const everything = { filter: {}, visibility: { all: true }, limit: 100 } as const;

describe('the corrections index on Postgres', () => {
  it('is built once from the log for a database from before it, by two nodes starting together, and kept from then on', { timeout: 60_000 }, async () => {
    const url = await databaseFromBeforeTheIndex();
    const stores: PostgresEventStore[] = await Promise.all([openPostgresEventStore({ url }), openPostgresEventStore({ url })]);
    try {
      expect(await stores[0]!.schemaVersion()).toBe(POSTGRES_MIGRATIONS.length);
      expect(await stores[0]!.corrections.isBuilt()).toBe(false);
      // Both nodes rebuild at once: the same records, written twice, stand once.
      expect(await Promise.all(stores.map((store) => buildCorrectionIndex(store)))).toEqual([3, 3]);
      const built = await stores[0]!.corrections.page(everything);
      expect(built.corrections.length).toBeGreaterThan(0);
      expect(new Set(built.corrections.map((record) => record.sessionId))).toEqual(new Set(['a', 'b']));
      expect(new Set(built.corrections.map((record) => `${record.sessionId}/${record.correctedStepId}`)).size).toBe(built.corrections.length);
      expect(await stores[1]!.corrections.page(everything)).toEqual(built);
      await stores[1]!.close();

      // A restart: the index is the database's, nothing to rebuild.
      await stores[0]!.close();
      stores.splice(0, 2, await openPostgresEventStore({ url }));
      expect(await stores[0]!.corrections.isBuilt()).toBe(true);
      expect(await buildCorrectionIndex(stores[0]!)).toBe(0);
      expect(await stores[0]!.corrections.page(everything)).toEqual(built);
    } finally {
      for (const store of stores) await store.close();
    }
  });

  it('needs no rebuild for a new database', async () => {
    const store = await openPostgresEventStore({ url: await postgres.current.createSchema() });
    try {
      expect(await store.corrections.isBuilt()).toBe(true);
      expect(await buildCorrectionIndex(store)).toBe(0);
    } finally {
      await store.close();
    }
  });
});
