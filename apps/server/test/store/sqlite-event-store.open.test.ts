import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSqliteEventStore, StoreOpenError } from '../../src/store/sqlite-event-store.js';
import { MIGRATIONS, migrate, schemaVersion, type Migration } from '../../src/store/sqlite/migrations.js';
import { EventScript, batchOf, makeTempDir, sessionLog, sessionRecord } from './store-fixtures.js';

let temp: ReturnType<typeof makeTempDir>;

beforeEach(() => {
  temp = makeTempDir();
});

afterEach(() => {
  temp.cleanup();
});

function openError(file: string): StoreOpenError {
  try {
    openSqliteEventStore(file).closeNow();
  } catch (error) {
    if (error instanceof StoreOpenError) return error;
    throw error;
  }
  throw new Error(`${file} was opened, but it should have been refused`);
}

/** Inspect a closed store's file directly. */
function withRawDb<T>(file: string, read: (db: Database.Database) => T): T {
  const db = new Database(file);
  try {
    return read(db);
  } finally {
    db.close();
  }
}

describe('openSqliteEventStore on a new or existing file', () => {
  it('creates the file and its missing folders, migrated to the latest schema in WAL mode', async () => {
    const file = join(temp.dir, 'nested', 'deeper', 'interthought.db');
    await openSqliteEventStore(file).close();
    expect(existsSync(file)).toBe(true);
    withRawDb(file, (db) => {
      expect(schemaVersion(db)).toBe(MIGRATIONS.length);
      expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
      const tables = db.prepare<[], { name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all();
      expect(tables.map((t) => t.name)).toEqual(['corrections', 'events', 'secrets', 'sessions', 'snapshots', 'store_facts']);
    });
  });

  it('migrates an existing empty file', async () => {
    writeFileSync(temp.file(), '');
    await openSqliteEventStore(temp.file()).close();
    withRawDb(temp.file(), (db) => expect(schemaVersion(db)).toBe(MIGRATIONS.length));
  });

  it('sees every session and event after close and reopen', async () => {
    const first = openSqliteEventStore(temp.file());
    await first.createSession(sessionRecord('s1'));
    const log = sessionLog('s1', 25);
    await first.appendBatch(batchOf(log));
    await first.updateSession({ ...sessionRecord('s1').info, status: 'completed', revision: 2 });
    await first.close();

    const second = openSqliteEventStore(temp.file());
    expect(await second.getSession('s1')).toEqual({ ...sessionRecord('s1'), info: { ...sessionRecord('s1').info, status: 'completed', revision: 2 }, lastSeq: 25 });
    expect(await second.readEvents('s1', 0)).toEqual(log);
    expect((await second.listSessions({ limit: 5 })).sessions.map((s) => s.sessionId)).toEqual(['s1']);
    // Appends continue from the stored lastSeq.
    await second.appendBatch(batchOf([new EventScript('s1', 25).status('paused')]));
    expect((await second.getSession('s1'))?.lastSeq).toBe(26);
    await second.close();
  });

  it('reopens an existing file without re-running its migrations', async () => {
    await openSqliteEventStore(temp.file()).close();
    const again = openSqliteEventStore(temp.file());
    await again.createSession(sessionRecord('s1'));
    await again.close();
    withRawDb(temp.file(), (db) => expect(schemaVersion(db)).toBe(MIGRATIONS.length));
  });

  it('runs in WAL mode with an exclusive lock, FULL commits, a busy timeout and foreign keys', async () => {
    const store = openSqliteEventStore(temp.file(), { retainEventsPerSession: 100 });
    expect(store.settings()).toEqual({
      path: temp.file(),
      schemaVersion: MIGRATIONS.length,
      journalMode: 'wal',
      lockingMode: 'exclusive',
      synchronous: 'FULL',
      busyTimeoutMs: 5000,
      foreignKeys: true,
      retainEventsPerSession: 100,
    });
    await store.close();
  });

  it('uses NORMAL synchronous commits when asked', async () => {
    const store = openSqliteEventStore(temp.file(), { synchronous: 'NORMAL' });
    expect(store.settings().synchronous).toBe('NORMAL');
    await store.close();
  });

  it('works in memory, with nothing written to disk', async () => {
    const store = openSqliteEventStore(':memory:');
    await store.createSession(sessionRecord('m'));
    await store.appendBatch(batchOf(sessionLog('m', 6)));
    expect((await store.readEvents('m', 3)).map((e) => e.seq)).toEqual([4, 5, 6]);
    expect(store.path).toBe(':memory:');
    await store.close();
    expect(existsSync(':memory:')).toBe(false);
  });
});

describe('openSqliteEventStore refusals', () => {
  it('refuses a retention limit that is not a positive integer', () => {
    expect(() => openSqliteEventStore(':memory:', { retainEventsPerSession: 0 })).toThrow(expect.objectContaining({ code: 'BAD_OPTIONS' }));
    expect(() => openSqliteEventStore(':memory:', { retainEventsPerSession: 2.5 })).toThrow(/positive integer/);
  });

  it('refuses a synchronous mode other than FULL or NORMAL', () => {
    const bad = { synchronous: 'OFF; DROP TABLE sessions' } as unknown as { synchronous: 'FULL' };
    expect(() => openSqliteEventStore(temp.file(), bad)).toThrow(expect.objectContaining({ code: 'BAD_OPTIONS' }));
    expect(existsSync(temp.file())).toBe(false);
  });

  it('refuses a file from a newer Interthought, leaving it untouched', () => {
    const future = MIGRATIONS.length + 1;
    withRawDb(temp.file(), (db) => db.pragma(`user_version = ${future}`));
    const error = openError(temp.file());
    expect(error.code).toBe('SCHEMA_TOO_NEW');
    expect(error.message).toContain(temp.file());
    expect(error.message).toContain(`schema version ${future}`);
    withRawDb(temp.file(), (db) => expect(schemaVersion(db)).toBe(future));
    expect(existsSync(`${temp.file()}.lock`)).toBe(false);
  });

  it('refuses a file that is not a SQLite database, naming it', () => {
    writeFileSync(temp.file('notes.txt'), 'These are plain notes, not a database.\n'.repeat(40));
    const error = openError(temp.file('notes.txt'));
    expect(error.code).toBe('NOT_A_DATABASE');
    expect(error.message).toContain(temp.file('notes.txt'));
    expect(existsSync(`${temp.file('notes.txt')}.lock`)).toBe(false);
  });

  it('refuses a directory, naming it', () => {
    const dir = temp.file('a-folder');
    mkdirSync(dir);
    const error = openError(dir);
    expect(error.code).toBe('CANNOT_OPEN');
    expect(error.message).toContain(`${dir} is a directory`);
  });

  it('refuses a path whose folder cannot be created, naming it', () => {
    writeFileSync(temp.file('plain-file'), 'x');
    const file = join(temp.file('plain-file'), 'interthought.db');
    const error = openError(file);
    expect(error.code).toBe('CANNOT_OPEN');
    expect(error.message).toContain(file);
  });
});

describe('schema migrations', () => {
  const addTags: Migration = (db) => db.exec('ALTER TABLE sessions ADD COLUMN tags TEXT');
  const broken: Migration = (db) => {
    db.exec('CREATE TABLE half_done (x)');
    db.exec('THIS IS NOT SQL');
  };

  it('applies only the migrations a file has not had, in order', () => {
    const db = new Database(temp.file());
    expect(migrate(db, temp.file(), MIGRATIONS)).toEqual({ from: 0, to: MIGRATIONS.length });
    expect(migrate(db, temp.file(), [...MIGRATIONS, addTags])).toEqual({ from: MIGRATIONS.length, to: MIGRATIONS.length + 1 });
    const columns = db.prepare<[], { name: string }>('SELECT name FROM pragma_table_info(\'sessions\')').all();
    expect(columns.map((c) => c.name)).toContain('tags');
    db.close();
  });

  it('rolls a failed migration back and leaves the file at the last good version', () => {
    const db = new Database(temp.file());
    let failure: unknown;
    try {
      migrate(db, temp.file(), [...MIGRATIONS, broken]);
    } catch (error) {
      failure = error;
    }
    expect(failure).toBeInstanceOf(StoreOpenError);
    expect(failure).toMatchObject({ code: 'MIGRATION_FAILED' });
    expect(schemaVersion(db)).toBe(MIGRATIONS.length);
    const halfDone = db.prepare("SELECT name FROM sqlite_master WHERE name = 'half_done'").get();
    expect(halfDone).toBeUndefined();
    db.close();
  });
});
