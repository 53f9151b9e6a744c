import type pg from 'pg';
import { maskedUrl, PostgresOpenError } from './open-errors.js';
import { CORRECTIONS_BUILT } from './postgres-corrections.js';

/** One schema step, run inside its transaction. Migration `i` (0-based) takes the schema from version `i` to `i + 1`. */
export type PostgresMigration = (client: pg.PoolClient) => Promise<void>;

/**
 * Every node migrates under this advisory lock (a transaction-scoped one, taken by each step), so
 * nodes starting at once apply each step exactly once, one after another. The number is arbitrary
 * but fixed: "interthought" as ASCII folded into an int8.
 */
export const MIGRATION_LOCK = 0x1e7e_7400_6874;

/**
 * The schema, oldest first. Never edit a released entry: append a new one. Ids, owners and
 * creation times sort as the other stores sort them (code unit order), hence `COLLATE "C"`.
 */
export const POSTGRES_MIGRATIONS: readonly PostgresMigration[] = [
  async function createInitialSchema(client) {
    await client.query(`
      CREATE TABLE sessions (
        id          TEXT COLLATE "C" PRIMARY KEY,
        task        TEXT NOT NULL,
        agent       TEXT NOT NULL,
        options     TEXT NOT NULL,              -- JSON of SessionOptions
        status      TEXT NOT NULL,
        revision    INTEGER NOT NULL,
        created_at  TEXT COLLATE "C" NOT NULL,  -- ISO-8601, as SessionInfo.createdAt
        updated_at  TEXT NOT NULL,
        last_seq    BIGINT NOT NULL DEFAULT 0,
        error       TEXT,
        detail      TEXT,
        forked_from TEXT,                       -- JSON of SessionInfo.forkedFrom
        owner_id    TEXT COLLATE "C",
        owner_name  TEXT,
        usage       TEXT,                       -- JSON of SessionInfo.usage
        failure     TEXT,
        model       TEXT,
        -- Cluster mode: the lease epoch of the node allowed to append (0: no cluster owner yet).
        epoch       BIGINT NOT NULL DEFAULT 0
      );
      CREATE INDEX sessions_by_created ON sessions (created_at DESC, id DESC);
      CREATE INDEX sessions_by_status ON sessions (status);
      CREATE INDEX sessions_by_owner ON sessions (owner_id, created_at DESC, id DESC);

      -- json is the event exactly as serialised once, so replays are served without re-serialising.
      CREATE TABLE events (
        session_id TEXT COLLATE "C" NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
        seq        BIGINT NOT NULL,
        type       TEXT NOT NULL,
        json       TEXT NOT NULL,
        PRIMARY KEY (session_id, seq)
      );

      -- The state at seq of a session whose older events retention trimmed (one per session).
      CREATE TABLE snapshots (
        session_id TEXT COLLATE "C" PRIMARY KEY REFERENCES sessions (id) ON DELETE CASCADE,
        seq        BIGINT NOT NULL,
        json       TEXT NOT NULL
      );

      -- Secrets the server makes once and keeps (the key share links are signed with).
      CREATE TABLE secrets (
        name  TEXT PRIMARY KEY,
        value TEXT NOT NULL
      );
    `);
  },
  async function addCorrections(client) {
    await client.query(`
      -- The index of corrections (PROTOCOL.md §26), as SQLite's: one row a correction, written in
      -- the transaction of the events that made it. order_key is at, session_id and
      -- corrected_step_id joined by NUL, as UTF-8 bytes (TEXT cannot hold NUL): pages go newest first on it.
      CREATE TABLE corrections (
        session_id        TEXT COLLATE "C" NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
        corrected_step_id TEXT COLLATE "C" NOT NULL,
        order_key         BYTEA NOT NULL,
        at                TEXT COLLATE "C" NOT NULL,
        owner_id          TEXT COLLATE "C",   -- the corrected session's owner: who sees the row
        agent             TEXT NOT NULL,
        model             TEXT,
        kind              TEXT NOT NULL,
        tool              TEXT,
        "by"              TEXT NOT NULL,
        json              TEXT NOT NULL,      -- the CorrectionRecord
        PRIMARY KEY (session_id, corrected_step_id)
      );
      CREATE INDEX corrections_by_order ON corrections (order_key DESC);
      CREATE INDEX corrections_by_owner ON corrections (owner_id, order_key DESC);
      CREATE INDEX corrections_by_session ON corrections (session_id, order_key DESC);

      -- Facts about the database, such as whether the index above covers the whole log yet.
      CREATE TABLE store_facts (
        name  TEXT PRIMARY KEY,
        value TEXT NOT NULL
      );
    `);
    // A database without sessions has nothing to index: built now. One with sessions (from
    // version 1) is built from the log by the start-up rebuild, once.
    await client.query(
      `INSERT INTO store_facts (name, value) SELECT $1, $2 WHERE NOT EXISTS (SELECT 1 FROM sessions)`,
      [CORRECTIONS_BUILT, new Date().toISOString()],
    );
  },
  async function addRunOwner(client) {
    // Cluster mode with the log here: the node whose run of the session is under way (NULL: none).
    // It outlives Redis, so a run whose owner died is found by the sweep even after Redis lost its keys.
    await client.query(`
      ALTER TABLE sessions ADD COLUMN run_owner TEXT;
      CREATE INDEX sessions_with_run_owner ON sessions (id) WHERE run_owner IS NOT NULL;
    `);
  },
];

const VERSIONS_TABLE = 'interthought_schema_versions';

/**
 * Bring the database's schema up to `migrations.length`: each step in its own transaction with
 * its version row, under `MIGRATION_LOCK`, so a failure leaves the last good version and nodes
 * starting together never apply a step twice. A database at a higher version is refused.
 */
export async function migrate(pool: pg.Pool, url: string, migrations: readonly PostgresMigration[] = POSTGRES_MIGRATIONS): Promise<{ from: number; to: number }> {
  const target = maskedUrl(url);
  const client = await pool.connect();
  let from: number | undefined;
  try {
    for (;;) {
      await client.query('BEGIN');
      let version = 0;
      try {
        // Waiting for another node's migration is no stall (cluster mode limits lock waits otherwise).
        await client.query('SET LOCAL lock_timeout = 0');
        await client.query('SET LOCAL idle_in_transaction_session_timeout = 0');
        await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
        await client.query(`CREATE TABLE IF NOT EXISTS ${VERSIONS_TABLE} (version INTEGER PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())`);
        const { rows } = await client.query<{ version: number | null }>(`SELECT max(version) AS version FROM ${VERSIONS_TABLE}`);
        version = rows[0]?.version ?? 0;
        from ??= version;
        if (version > migrations.length) {
          throw new PostgresOpenError(
            'SCHEMA_TOO_NEW',
            target,
            `The database at ${target} has schema version ${version}, but this Interthought build knows versions up to ${migrations.length}. ` +
              'It was migrated by a newer Interthought: upgrade this server, or point INTERTHOUGHT_DATABASE_URL at another database.',
          );
        }
        const step = migrations[version];
        if (version === migrations.length || !step) {
          await client.query('COMMIT');
          return { from, to: version };
        }
        await step(client);
        await client.query(`INSERT INTO ${VERSIONS_TABLE} (version) VALUES ($1)`, [version + 1]);
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        if (error instanceof PostgresOpenError) throw error;
        throw new PostgresOpenError(
          'MIGRATION_FAILED',
          target,
          `Migrating the database at ${target} from schema version ${version} to ${version + 1} failed (${(error as Error).message}); it was left at version ${version}.`,
          { cause: error },
        );
      }
    }
  } finally {
    client.release();
  }
}

/** The schema version the database is at (0 before the first migration). */
export async function postgresSchemaVersion(pool: pg.Pool): Promise<number> {
  const { rows } = await pool.query<{ version: number | null }>(`SELECT max(version) AS version FROM ${VERSIONS_TABLE}`);
  return rows[0]?.version ?? 0;
}
