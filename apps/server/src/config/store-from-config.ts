import { MEMORY_DB, type ServerConfig } from './server-config.js';
import { openSqliteEventStore, StoreOpenError, type SqliteEventStore } from '../store/sqlite-event-store.js';

/**
 * Open the SQLite event store the configuration names (INTERTHOUGHT_DB, INTERTHOUGHT_RETAIN_EVENTS).
 * Throws `StoreOpenError` when the file cannot be used; `storeRefusal` words it for the operator.
 */
export function openConfiguredStore(config: Pick<ServerConfig, 'db' | 'retainEventsPerSession'>): SqliteEventStore {
  const keep = config.retainEventsPerSession;
  return openSqliteEventStore(config.db, keep === undefined ? {} : { retainEventsPerSession: keep });
}

/** The start-up line that says where sessions live. */
export function storeLocation(store: Pick<SqliteEventStore, 'path'>): string {
  if (store.path === MEMORY_DB) return 'Sessions are kept in memory only (INTERTHOUGHT_DB=:memory:): they are lost when the server stops.';
  return `Sessions are stored in ${store.path}`;
}

/**
 * Why start-up refused the database, as one paragraph: the store's message (it names the path and
 * says what to do) and how to point the server elsewhere. No stack trace: the operator can act on
 * this, a trace would bury it.
 */
export function storeRefusal(error: StoreOpenError): string {
  const reason = error.message.replace(/\s*\n\s*/g, ' ').trim();
  return (
    `Interthought cannot start: it cannot use its session database. ${reason} ` +
    `Set INTERTHOUGHT_DB to another file, or to ${MEMORY_DB} to keep sessions in memory only.`
  );
}

export { StoreOpenError };
