import { MEMORY_DB, type ServerConfig } from './server-config.js';
import type { DatabaseConfig } from './database-config.js';
import { openSqliteEventStore, StoreOpenError, type SqliteEventStore } from '../store/sqlite-event-store.js';
import { openPostgresEventStore, PostgresOpenError, type PostgresEventStore } from '../store/postgres/postgres-event-store.js';

/**
 * Open the SQLite event store the configuration names (INTERTHOUGHT_DB, INTERTHOUGHT_RETAIN_EVENTS).
 * Throws `StoreOpenError` when the file cannot be used; `storeRefusal` words it for the operator.
 */
export function openConfiguredStore(config: Pick<ServerConfig, 'db' | 'retainEventsPerSession'>): SqliteEventStore {
  const keep = config.retainEventsPerSession;
  return openSqliteEventStore(config.db, keep === undefined ? {} : { retainEventsPerSession: keep });
}

/**
 * The store a single node keeps its sessions in: Postgres when INTERTHOUGHT_DATABASE_URL is set
 * (migrated before it is used), else the SQLite file. Throws `StoreOpenError` or
 * `PostgresOpenError`; `storeRefusal` words either for the operator.
 */
export async function openNodeStore(
  config: Pick<ServerConfig, 'db' | 'retainEventsPerSession'> & { database?: DatabaseConfig | undefined },
): Promise<SqliteEventStore | PostgresEventStore> {
  if (config.database === undefined) return openConfiguredStore(config);
  const keep = config.retainEventsPerSession;
  return openPostgresEventStore({ url: config.database.url, poolSize: config.database.poolSize, ...(keep === undefined ? {} : { retainEventsPerSession: keep }) });
}

/** The start-up line that says where sessions live. */
export function storeLocation(store: Pick<SqliteEventStore, 'path'> | Pick<PostgresEventStore, 'target'>): string {
  if ('target' in store) return `Sessions are stored in the Postgres database at ${store.target}`;
  if (store.path === MEMORY_DB) return 'Sessions are kept in memory only (INTERTHOUGHT_DB=:memory:): they are lost when the server stops.';
  return `Sessions are stored in ${store.path}`;
}

/**
 * Why start-up refused the database, as one paragraph: the store's message (it names the path or
 * database and says what to do) and how to point the server elsewhere. No stack trace: the
 * operator can act on this, a trace would bury it.
 */
export function storeRefusal(error: StoreOpenError | PostgresOpenError): string {
  const reason = error.message.replace(/\s*\n\s*/g, ' ').trim();
  if (error instanceof PostgresOpenError) {
    return (
      `Interthought cannot start: it cannot use its session database (INTERTHOUGHT_DATABASE_URL). ${reason} ` +
      'Fix INTERTHOUGHT_DATABASE_URL (and its sslmode), start the database, or unset INTERTHOUGHT_DATABASE_URL to keep sessions in the SQLite file INTERTHOUGHT_DB names.'
    );
  }
  return (
    `Interthought cannot start: it cannot use its session database. ${reason} ` +
    `Set INTERTHOUGHT_DB to another file, or to ${MEMORY_DB} to keep sessions in memory only.`
  );
}

/** Whether `error` is a store refusing to open (which `storeRefusal` words), not a bug. */
export function isStoreRefusal(error: unknown): error is StoreOpenError | PostgresOpenError {
  return error instanceof StoreOpenError || error instanceof PostgresOpenError;
}

export { PostgresOpenError, StoreOpenError };
