import { afterAll, afterEach, beforeAll } from 'vitest';
import { openPostgresEventStore, type PostgresEventStore } from '../../src/store/postgres/postgres-event-store.js';
import { startPostgresServer, type PostgresServer } from '../support/postgres-server.js';
import { describeStoreContract, typedRefusals } from './contract/store-contract.js';

/** The retention the contract's retaining stores get: trimmed back to KEEP once over KEEP + KEEP / 4. */
const KEEP = 8;

let server: PostgresServer;
const opened: PostgresEventStore[] = [];
/** Where each store lives and what it keeps, so `reopen` opens another over the same database. */
const settings = new Map<PostgresEventStore, { url: string; retainEventsPerSession?: number }>();

beforeAll(async () => {
  server = await startPostgresServer();
}, 60_000);

afterEach(async () => {
  for (const store of opened.splice(0)) await store.close();
});

afterAll(async () => {
  await server?.stop();
}, 30_000);

async function openAt(url: string, retainEventsPerSession?: number): Promise<PostgresEventStore> {
  const store = await openPostgresEventStore(retainEventsPerSession === undefined ? { url } : { url, retainEventsPerSession });
  opened.push(store);
  settings.set(store, retainEventsPerSession === undefined ? { url } : { url, retainEventsPerSession });
  return store;
}

describeStoreContract<PostgresEventStore>('PostgresEventStore', {
  async open({ retained = false } = {}) {
    return openAt(await server.createSchema(), retained ? KEEP : undefined);
  },
  retention: { mostKept: KEEP + KEEP / 4, keptAfterTrim: KEEP },
  // A restart, or another node: a second pool over the same database, after the first let go.
  async reopen(store) {
    const { url, retainEventsPerSession } = settings.get(store)!;
    await store.close();
    return openAt(url, retainEventsPerSession);
  },
  expectRefusal: typedRefusals(
    ({ sessionId, after, got }) => new RegExp(`^Session ${sessionId}: event seq ${got} does not follow seq ${after}; the batch was not written\\.`),
  ),
  differences: {
    identicalCreate: 'refused',
    repeatedBatch: 'refused',
    batchWithUnknownSession: 'nothing',
    readsWhenClosed: 'refused',
    sessionOrder: 'createdAt, then id',
    badLimits: 'refused',
    warnsOfUnfoldableLog: true,
  },
});
