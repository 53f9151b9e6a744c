import type Database from 'better-sqlite3';
import { StoreOpenError } from './open-errors.js';

/** One schema step. Migration `i` (0-based) takes the schema from version `i` to `i + 1`. */
export type Migration = (db: Database.Database) => void;

/**
 * The schema, oldest first. Never edit a released entry: append a new one, since files in the
 * field are at every version. `PRAGMA user_version` records how many have been applied.
 */
export const MIGRATIONS: readonly Migration[] = [
  function createInitialSchema(db) {
    db.exec(`
      CREATE TABLE sessions (
        id         TEXT PRIMARY KEY,
        task       TEXT NOT NULL,
        agent      TEXT NOT NULL,
        options    TEXT NOT NULL,             -- JSON of SessionOptions
        status     TEXT NOT NULL,
        revision   INTEGER NOT NULL,
        created_at TEXT NOT NULL,             -- ISO-8601, as SessionInfo.createdAt
        updated_at TEXT NOT NULL,
        last_seq   INTEGER NOT NULL DEFAULT 0,
        error      TEXT,
        detail     TEXT
      );
      -- The sessions list pages newest first on (created_at, id).
      CREATE INDEX sessions_by_created ON sessions (created_at DESC, id DESC);
      CREATE INDEX sessions_by_status ON sessions (status);

      -- json is the event exactly as serialised once, so replays are served without re-serialising.
      CREATE TABLE events (
        session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
        seq        INTEGER NOT NULL,
        type       TEXT NOT NULL,
        json       TEXT NOT NULL,
        PRIMARY KEY (session_id, seq)
      ) WITHOUT ROWID;

      -- The state at seq of a session whose older events retention trimmed (one per session).
      CREATE TABLE snapshots (
        session_id TEXT PRIMARY KEY REFERENCES sessions (id) ON DELETE CASCADE,
        seq        INTEGER NOT NULL,
        json       TEXT NOT NULL
      ) WITHOUT ROWID;
    `);
  },
  function addForkedFrom(db) {
    // JSON of SessionInfo.forkedFrom (a fork's source session and step); NULL for other sessions.
    db.exec('ALTER TABLE sessions ADD COLUMN forked_from TEXT');
  },
  function addOwnersAndSecrets(db) {
    db.exec(`
      -- SessionInfo.owner (the user a session belongs to); NULL on a server without users.
      ALTER TABLE sessions ADD COLUMN owner_id TEXT;
      ALTER TABLE sessions ADD COLUMN owner_name TEXT;
      -- A user's list pages newest first, like the whole list.
      CREATE INDEX sessions_by_owner ON sessions (owner_id, created_at DESC, id DESC);
      -- Secrets the server makes once and keeps (the key share links are signed with).
      CREATE TABLE secrets (
        name  TEXT PRIMARY KEY,
        value TEXT NOT NULL
      ) WITHOUT ROWID;
    `);
  },
  function addUsageAndFailure(db) {
    db.exec(`
      -- JSON of SessionInfo.usage (the session's token and cost totals); NULL until a model call was recorded.
      ALTER TABLE sessions ADD COLUMN usage TEXT;
      -- SessionInfo.failure (why a failed session failed, e.g. budget); NULL otherwise.
      ALTER TABLE sessions ADD COLUMN failure TEXT;
    `);
  },
  function addModel(db) {
    // SessionInfo.model (the model the session's agent calls, fixed at creation); NULL for an agent that offers none.
    db.exec('ALTER TABLE sessions ADD COLUMN model TEXT');
  },
  function addCorrections(db) {
    db.exec(`
      -- The index of corrections (PROTOCOL.md §26): one row a correction, written with its events.
      -- order_key is at, session_id and corrected_step_id joined by NUL: the list pages newest first on it.
      CREATE TABLE corrections (
        session_id        TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
        corrected_step_id TEXT NOT NULL,
        order_key         TEXT NOT NULL,
        at                TEXT NOT NULL,
        owner_id          TEXT,              -- the corrected session's owner: who sees the row
        agent             TEXT NOT NULL,
        model             TEXT,
        kind              TEXT NOT NULL,
        tool              TEXT,
        by                TEXT NOT NULL,
        json              TEXT NOT NULL,     -- the CorrectionRecord
        PRIMARY KEY (session_id, corrected_step_id)
      ) WITHOUT ROWID;
      CREATE INDEX corrections_by_order ON corrections (order_key DESC);
      CREATE INDEX corrections_by_owner ON corrections (owner_id, order_key DESC);
      CREATE INDEX corrections_by_session ON corrections (session_id, order_key DESC);
      -- Facts about the file, such as whether the index above covers the whole log yet.
      CREATE TABLE store_facts (
        name  TEXT PRIMARY KEY,
        value TEXT NOT NULL
      ) WITHOUT ROWID;
    `);
  },
];

/** The schema version a file is at (0 for a new, empty file). */
export function schemaVersion(db: Database.Database): number {
  return db.pragma('user_version', { simple: true }) as number;
}

/**
 * Bring the file's schema up to `migrations.length`, each migration in its own transaction with
 * its version bump, so a failure leaves the file at the last good version. A file at a higher
 * version than this build knows is refused rather than risked.
 */
export function migrate(db: Database.Database, path: string, migrations: readonly Migration[] = MIGRATIONS): { from: number; to: number } {
  const from = schemaVersion(db);
  const latest = migrations.length;
  if (from > latest) {
    throw new StoreOpenError(
      'SCHEMA_TOO_NEW',
      path,
      `${path} has schema version ${from}, but this Interthought build knows versions up to ${latest}. ` +
        'It was written by a newer Interthought: upgrade this server, or use another database file.',
    );
  }
  for (let version = from; version < latest; version += 1) {
    const migration = migrations[version];
    if (!migration) break;
    const apply = db.transaction(() => {
      migration(db);
      // user_version lives in the file header and is written by the same transaction.
      db.pragma(`user_version = ${version + 1}`);
    });
    try {
      apply.immediate();
    } catch (error) {
      throw new StoreOpenError(
        'MIGRATION_FAILED',
        path,
        `Migrating ${path} from schema version ${version} to ${version + 1} failed (${(error as Error).message}); the file was left at version ${version}.`,
        { cause: error },
      );
    }
  }
  return { from, to: Math.max(from, latest) };
}
