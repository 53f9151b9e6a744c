import { afterEach, beforeEach } from 'vitest';
import { openSqliteEventStore, type SqliteEventStore, type SqliteEventStoreOptions } from '../../src/store/sqlite-event-store.js';
import { describeStoreContract } from './contract/store-contract.js';
import { SQL_STORE_DIFFERENCES, sqlStoreRefusals } from './contract/sql-stores.js';
import { makeTempDir } from './store-fixtures.js';

/** The retention the contract's retaining stores get: trimmed back to KEEP once over KEEP + KEEP / 4. */
const KEEP = 8;

let temp: ReturnType<typeof makeTempDir>;
let files = 0;
const opened: SqliteEventStore[] = [];

beforeEach(() => {
  temp = makeTempDir();
});

afterEach(async () => {
  for (const store of opened.splice(0)) await store.close();
  temp.cleanup();
});

function openFile(file: string, options: SqliteEventStoreOptions): SqliteEventStore {
  const store = openSqliteEventStore(file, options);
  opened.push(store);
  return store;
}

describeStoreContract<SqliteEventStore>('SqliteEventStore', {
  async open({ retained = false } = {}) {
    return openFile(temp.file(`store-${++files}.db`), retained ? { retainEventsPerSession: KEEP } : {});
  },
  retention: { mostKept: KEEP + KEEP / 4, keptAfterTrim: KEEP },
  // A restart: the file is let go, then opened again with the same settings.
  async reopen(store) {
    const keep = store.settings().retainEventsPerSession;
    await store.close();
    return openFile(store.path, keep === undefined ? {} : { retainEventsPerSession: keep });
  },
  expectRefusal: sqlStoreRefusals,
  differences: SQL_STORE_DIFFERENCES,
});
