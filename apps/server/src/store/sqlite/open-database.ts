import { mkdirSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { migrate } from './migrations.js';
import { acquireProcessLock, type ProcessLock } from './process-lock.js';
import { StoreOpenError } from './open-errors.js';

/**
 * `FULL` fsyncs the WAL on every commit; `NORMAL` only at checkpoints, so a power loss (not a
 * crash of the process) may drop the last commits.
 */
export type SynchronousMode = 'NORMAL' | 'FULL';

export interface OpenedDatabase {
  db: Database.Database;
  /** The absolute path, or `:memory:`. */
  path: string;
  /** Absent for `:memory:`, which no other process can see. */
  lock: ProcessLock | undefined;
}

/** How long a statement waits for a lock before SQLITE_BUSY, once the file is ours. */
const BUSY_TIMEOUT_MS = 5_000;

export const MEMORY_PATH = ':memory:';

function sqliteCode(error: unknown): string | undefined {
  return error instanceof Database.SqliteError ? error.code : undefined;
}

/** Turn what SQLite or the file system threw at open time into a message naming the path. */
function toOpenError(path: string, error: unknown): StoreOpenError {
  if (error instanceof StoreOpenError) return error;
  const code = sqliteCode(error) ?? '';
  const reason = (error as Error).message;
  if (code === 'SQLITE_NOTADB' || code.startsWith('SQLITE_CORRUPT')) {
    return new StoreOpenError('NOT_A_DATABASE', path, `${path} is not an Interthought database (${reason}). Point the server at another file.`, {
      cause: error,
    });
  }
  if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) {
    return new StoreOpenError('IN_USE', path, `${path} is in use by another process, which holds a lock on it. Stop it, or use another database file.`, {
      cause: error,
    });
  }
  if (code.startsWith('SQLITE_READONLY')) {
    return new StoreOpenError('CANNOT_OPEN', path, `${path} cannot be written (${reason}). Check the permissions of the file and its folder.`, {
      cause: error,
    });
  }
  return new StoreOpenError('CANNOT_OPEN', path, `Cannot open ${path} (${reason}).`, { cause: error });
}

function prepareFolder(path: string): void {
  const stats = statSync(path, { throwIfNoEntry: false });
  if (stats?.isDirectory()) {
    throw new StoreOpenError('CANNOT_OPEN', path, `${path} is a directory, not a database file.`);
  }
  try {
    mkdirSync(dirname(path), { recursive: true });
  } catch (error) {
    throw new StoreOpenError('CANNOT_OPEN', path, `Cannot create the folder of ${path} (${(error as Error).message}).`, { cause: error });
  }
}

/**
 * Exclusive locking first, then WAL: in that order SQLite never creates the shared-memory index
 * (`-shm`), and the connection keeps an exclusive lock on the file for its whole life, so another
 * process cannot read or write it, and the kernel drops the lock when this process dies.
 * `busy_timeout` is 0 until then, so a held file is refused at once instead of after a wait.
 */
function configureFile(db: Database.Database, path: string, synchronous: SynchronousMode): void {
  db.pragma('locking_mode = EXCLUSIVE');
  const journal = db.pragma('journal_mode = WAL', { simple: true });
  if (journal !== 'wal') {
    throw new StoreOpenError('CANNOT_OPEN', path, `${path} cannot use write-ahead logging (journal mode stayed ${String(journal)}).`);
  }
  db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  db.pragma(`synchronous = ${synchronous}`);
}

function configure(db: Database.Database, path: string, synchronous: SynchronousMode): void {
  if (path !== MEMORY_PATH) configureFile(db, path, synchronous);
  db.pragma('foreign_keys = ON');
  migrate(db, path);
}

/**
 * Open (creating if needed) the database at `file` for this process alone, configured and
 * migrated to the current schema. Throws `StoreOpenError` naming the path when it cannot.
 */
export function openDatabase(file: string, synchronous: SynchronousMode): OpenedDatabase {
  const path = file === MEMORY_PATH ? MEMORY_PATH : resolve(file);
  let lock: ProcessLock | undefined;
  let db: Database.Database | undefined;
  try {
    if (path !== MEMORY_PATH) {
      prepareFolder(path);
      lock = acquireProcessLock(path);
    }
    db = new Database(path, { timeout: 0 });
    configure(db, path, synchronous);
    return { db, path, lock };
  } catch (error) {
    db?.close();
    lock?.release();
    throw toOpenError(path, error);
  }
}
