import pg from 'pg';
import { maskedUrl, PostgresOpenError } from './open-errors.js';

/** How to reach the database: INTERTHOUGHT_DATABASE_URL and INTERTHOUGHT_DATABASE_POOL. */
export interface PostgresConnectOptions {
  /** `postgres://user:password@host:port/database?sslmode=…`; TLS as libpq's `sslmode` (disable, require, verify-ca, verify-full) and `sslrootcert`/`sslcert`/`sslkey` say. */
  url: string;
  /** Most connections this node holds (default 10). */
  poolSize?: number;
  /**
   * Cluster mode: the server ends a connection left idle inside a transaction this long, and a
   * statement waits this long for a row lock, so a node stalled mid-append (a pause, SIGSTOP)
   * never holds the locks the node taking its sessions over must take. Unset: no limit.
   */
  stallLimitMs?: number;
}

export const DEFAULT_POOL_SIZE = 10;
const CONNECT_TIMEOUT_MS = 5_000;
/** int8 (bigint) columns: seqs and counts, always well inside 2^53. */
const INT8_OID = 20;

/** bigint as a JS number rather than pg's default string: seqs are compared and added. */
const types = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === INT8_OID && format !== 'binary') return (value: string) => Number(value);
    return pg.types.getTypeParser(oid, format as 'text');
  },
};

/** A URL pg can read, else `BAD_URL` naming it. */
export function checkUrl(url: string): void {
  if (!/^postgres(ql)?:\/\//.test(url)) {
    throw new PostgresOpenError('BAD_URL', maskedUrl(url), `${maskedUrl(url)} is not a postgres:// or postgresql:// URL.`);
  }
  try {
    new URL(url);
  } catch (error) {
    throw new PostgresOpenError('BAD_URL', maskedUrl(url), `${maskedUrl(url)} is not a URL (${(error as Error).message}).`, { cause: error });
  }
}

/**
 * A pool over the database, checked with one query: a host that is down, refused credentials or
 * TLS, or a missing database is `UNREACHABLE` at start-up, not on the first append.
 */
export async function connectPool(options: PostgresConnectOptions): Promise<pg.Pool> {
  checkUrl(options.url);
  const max = options.poolSize ?? DEFAULT_POOL_SIZE;
  const stall = options.stallLimitMs === undefined ? {} : { idle_in_transaction_session_timeout: options.stallLimitMs, lock_timeout: options.stallLimitMs };
  const pool = new pg.Pool({ connectionString: options.url, max, connectionTimeoutMillis: CONNECT_TIMEOUT_MS, types, ...stall });
  // An idle connection the server drops (a restart, a failover) must not crash the process; the pool replaces it.
  pool.on('error', () => undefined);
  try {
    await pool.query('SELECT 1');
  } catch (error) {
    await pool.end().catch(() => undefined);
    const target = maskedUrl(options.url);
    throw new PostgresOpenError('UNREACHABLE', target, `Cannot connect to the Postgres database at ${target}: ${(error as Error).message}.`, { cause: error });
  }
  return pool;
}
