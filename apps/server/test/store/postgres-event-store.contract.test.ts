import { afterEach, vi } from 'vitest';
import { openPostgresEventStore, type PostgresEventStore } from '../../src/store/postgres/postgres-event-store.js';
import { usePostgresServer } from '../support/postgres-scope.js';
import { describeStoreContract } from './contract/store-contract.js';
import { SQL_STORE_DIFFERENCES, sqlStoreRefusals } from './contract/sql-stores.js';

/** The retention the contract's retaining stores get: trimmed back to KEEP once over KEEP + KEEP / 4. */
const KEEP = 8;

const postgres = usePostgresServer();

// Every append is a few round trips and a WAL fsync on a real server: on a loaded machine the
// contract's longest test (hundreds of sequential appends) needs more than the default 20 s.
vi.setConfig({ testTimeout: 90_000 });
const opened: PostgresEventStore[] = [];
/** Where each store lives and what it keeps, so `reopen` opens another over the same database. */
const settings = new Map<PostgresEventStore, { url: string; retainEventsPerSession?: number }>();

afterEach(async () => {
  for (const store of opened.splice(0)) await store.close();
});

async function openAt(url: string, retainEventsPerSession?: number): Promise<PostgresEventStore> {
  const store = await openPostgresEventStore(retainEventsPerSession === undefined ? { url } : { url, retainEventsPerSession });
  opened.push(store);
  settings.set(store, retainEventsPerSession === undefined ? { url } : { url, retainEventsPerSession });
  return store;
}

describeStoreContract<PostgresEventStore>('PostgresEventStore', {
  async open({ retained = false } = {}) {
    return openAt(await postgres.current.createSchema(), retained ? KEEP : undefined);
  },
  retention: { mostKept: KEEP + KEEP / 4, keptAfterTrim: KEEP },
  // A restart, or another node: a second pool over the same database, after the first let go.
  async reopen(store) {
    const { url, retainEventsPerSession } = settings.get(store)!;
    await store.close();
    return openAt(url, retainEventsPerSession);
  },
  expectRefusal: sqlStoreRefusals,
  differences: SQL_STORE_DIFFERENCES,
});
