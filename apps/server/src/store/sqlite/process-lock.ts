import { closeSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { StoreOpenError } from './open-errors.js';

/**
 * `<db>.lock` holds the pid of the server using the database, so a second server can be refused
 * with a message that names it. The file is advice, not the guarantee: the SQLite connection
 * also holds an exclusive file lock (see open-database.ts), which the kernel drops when the
 * process dies. A lock file left by a killed process (kill -9) names a dead pid and is taken over.
 */
export interface ProcessLock {
  readonly path: string;
  /** Remove the lock file if it is still ours. Idempotent. */
  release(): void;
}

/** Lock files this process holds, so a second open in the same process is refused too. */
const heldHere = new Set<string>();

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function readHolderPid(lockPath: string): number | undefined {
  try {
    const pid = Number.parseInt(readFileSync(lockPath, 'utf8').trim(), 10);
    return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

function tryCreate(lockPath: string): boolean {
  let fd: number;
  try {
    fd = openSync(lockPath, 'wx');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
  try {
    writeSync(fd, `${process.pid}\n`);
  } finally {
    closeSync(fd);
  }
  return true;
}

function removeStale(lockPath: string): void {
  try {
    unlinkSync(lockPath);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}

function refuse(dbPath: string, lockPath: string, pid: number): never {
  const message =
    pid === process.pid
      ? `${dbPath} is already open in this process (pid ${pid}); close that store first.`
      : `${dbPath} is in use by another Interthought server (pid ${pid}). Stop that server, or use another database file. ` +
        `If no such server runs, delete ${lockPath}.`;
  throw new StoreOpenError('IN_USE', dbPath, message, { holderPid: pid });
}

/**
 * Take `<dbPath>.lock` for this process, or throw `StoreOpenError('IN_USE')` naming the live
 * holder. A lock naming a dead pid, or this pid without a store open here (a restarted
 * container reuses pids), is stale and taken over.
 */
export function acquireProcessLock(dbPath: string): ProcessLock {
  const lockPath = `${dbPath}.lock`;
  if (heldHere.has(lockPath)) refuse(dbPath, lockPath, process.pid);
  try {
    // Two rounds: the second follows the removal of a stale lock; losing that race to another
    // starter means the file now names a live holder.
    for (let round = 0; round < 2; round += 1) {
      if (tryCreate(lockPath)) {
        heldHere.add(lockPath);
        return { path: lockPath, release: () => releaseLock(lockPath) };
      }
      const holder = readHolderPid(lockPath);
      if (holder !== undefined && holder !== process.pid && isAlive(holder)) refuse(dbPath, lockPath, holder);
      removeStale(lockPath);
    }
  } catch (error) {
    if (error instanceof StoreOpenError) throw error;
    throw new StoreOpenError('CANNOT_OPEN', dbPath, `Cannot create the lock file ${lockPath}: ${(error as Error).message}`, {
      cause: error,
    });
  }
  const holder = readHolderPid(lockPath);
  if (holder !== undefined) refuse(dbPath, lockPath, holder);
  throw new StoreOpenError('IN_USE', dbPath, `${dbPath} is being opened by another process at the same time (${lockPath}).`);
}

function releaseLock(lockPath: string): void {
  if (!heldHere.delete(lockPath)) return;
  // Only remove the file if it still names us: never delete a lock another server took over.
  // A file we fail to remove names our pid, which is stale once we exit, so it blocks nobody.
  try {
    if (readHolderPid(lockPath) === process.pid) removeStale(lockPath);
  } catch {
    return;
  }
}
