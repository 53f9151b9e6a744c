import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSqliteEventStore, StoreOpenError } from '../../src/store/sqlite-event-store.js';
import { makeTempDir } from './store-fixtures.js';

const SERVER_DIR = fileURLToPath(new URL('../../', import.meta.url));
const CHILD_SCRIPT = fileURLToPath(new URL('./fixtures/open-store-child.ts', import.meta.url));

interface ChildReport {
  pid: number;
  opened: boolean;
  code?: string;
  holderPid?: number;
  message?: string;
  sessionId?: string;
}

interface RunningChild {
  process: ChildProcess;
  report: ChildReport;
}

const children: ChildProcess[] = [];
let temp: ReturnType<typeof makeTempDir>;

beforeEach(() => {
  temp = makeTempDir();
});

afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  temp.cleanup();
});

/** Start the child script in its own Node process and wait for its one-line report. */
function startChild(file: string, mode: 'hold' | 'probe'): Promise<RunningChild> {
  const child = spawn(process.execPath, ['--import', 'tsx', CHILD_SCRIPT, file, mode], {
    cwd: SERVER_DIR,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.once('line', (line) => resolve({ process: child, report: JSON.parse(line) as ChildReport }));
    child.once('exit', (code) => reject(new Error(`child exited (${code}) before reporting: ${stderr}`)));
  });
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

function openError(file: string): StoreOpenError {
  try {
    openSqliteEventStore(file).closeNow();
  } catch (error) {
    if (error instanceof StoreOpenError) return error;
    throw error;
  }
  throw new Error(`${file} was opened, but it should have been refused`);
}

describe('SqliteEventStore exclusive use', () => {
  it('refuses a second store on the same file in the same process, and allows it after close', async () => {
    const first = openSqliteEventStore(temp.file());
    const error = openError(temp.file());
    expect(error.code).toBe('IN_USE');
    expect(error.message).toContain(temp.file());
    await first.close();
    await openSqliteEventStore(temp.file()).close();
  });

  it('removes its lock file on close', async () => {
    await openSqliteEventStore(temp.file()).close();
    expect(existsSync(`${temp.file()}.lock`)).toBe(false);
  });

  it('refuses a file another server process holds, naming its pid, then opens it once that process is killed', async () => {
    const holder = await startChild(temp.file(), 'hold');
    expect(holder.report.opened).toBe(true);

    const refused = openError(temp.file());
    expect(refused.code).toBe('IN_USE');
    expect(refused.holderPid).toBe(holder.report.pid);
    expect(refused.message).toContain(`${temp.file()} is in use by another Interthought server (pid ${holder.report.pid})`);

    const probe = await startChild(temp.file(), 'probe');
    expect(probe.report).toMatchObject({ opened: false, code: 'IN_USE', holderPid: holder.report.pid });

    holder.process.kill('SIGKILL');
    await exited(holder.process);
    // kill -9 left its lock file behind; it names a dead pid and must not block the restart.
    expect(readFileSync(`${temp.file()}.lock`, 'utf8').trim()).toBe(String(holder.report.pid));

    const store = openSqliteEventStore(temp.file());
    const sessionId = holder.report.sessionId ?? '';
    expect((await store.getSession(sessionId))?.lastSeq).toBe(1);
    expect(await store.readEvents(sessionId, 0)).toHaveLength(1);
    await store.close();
  });

  it('still refuses a held file whose lock file was deleted, because SQLite holds it exclusively, and opens it once the holder closes', async () => {
    const holder = await startChild(temp.file(), 'hold');
    expect(holder.report.opened).toBe(true);
    rmSync(`${temp.file()}.lock`);
    const refused = openError(temp.file());
    expect(refused.code).toBe('IN_USE');
    expect(refused.message).toContain(temp.file());
    // SQLite's lock refused it, not the lock file: the message says so and knows no pid.
    expect(refused.message).toBe(`${temp.file()} is in use by another process, which holds a lock on it. Stop it, or use another database file.`);
    expect(refused.holderPid).toBeUndefined();
    expect(refused.cause).toBeInstanceOf(Database.SqliteError);
    expect((refused.cause as InstanceType<typeof Database.SqliteError>).code).toBe('SQLITE_BUSY');
    // The refused opener must not leave its own lock file behind.
    expect(existsSync(`${temp.file()}.lock`)).toBe(false);
    // Nor can a plain SQLite connection read the file while the holder has it.
    const plain = new Database(temp.file(), { timeout: 0 });
    try {
      expect(() => plain.prepare('SELECT count(*) FROM sessions').get()).toThrow(/database is locked/);
    } finally {
      plain.close();
    }

    holder.process.kill('SIGTERM');
    await exited(holder.process);
    const store = openSqliteEventStore(temp.file());
    expect((await store.getSession(holder.report.sessionId ?? ''))?.lastSeq).toBe(1);
    await store.close();
  });

  it('lets another process open the file after this one closes it', async () => {
    const store = openSqliteEventStore(temp.file());
    const whileOpen = await startChild(temp.file(), 'probe');
    expect(whileOpen.report).toMatchObject({ opened: false, code: 'IN_USE', holderPid: process.pid });
    await store.close();
    const afterClose = await startChild(temp.file(), 'probe');
    expect(afterClose.report.opened).toBe(true);
  });

  it('takes over a lock file that names a dead process', async () => {
    const gone = await startChild(temp.file(), 'probe');
    await exited(gone.process);
    writeFileSync(`${temp.file()}.lock`, `${gone.report.pid}\n`);
    const store = openSqliteEventStore(temp.file());
    expect(readFileSync(`${temp.file()}.lock`, 'utf8').trim()).toBe(String(process.pid));
    await store.close();
  });

  it('takes over an empty lock file left by a crash while it was being written', async () => {
    writeFileSync(`${temp.file()}.lock`, '');
    await openSqliteEventStore(temp.file()).close();
  });
});
