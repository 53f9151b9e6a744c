import { afterAll, beforeAll } from 'vitest';
import { startPostgresServer, type PostgresServer } from './postgres-server.js';

/**
 * One PostgreSQL server for the test file: started before its tests (initdb takes seconds, so not
 * one per test), stopped after them. Read `.current` inside tests and hooks.
 */
export function usePostgresServer(): { readonly current: PostgresServer } {
  let server: PostgresServer | undefined;
  beforeAll(async () => {
    server = await startPostgresServer();
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
  }, 30_000);
  return {
    get current() {
      if (server === undefined) throw new Error('The Postgres server is not started yet: use it inside tests or hooks.');
      return server;
    },
  };
}
