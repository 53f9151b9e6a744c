import { spawn } from 'node:child_process';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../src/config/server-package.js';
import { openPostgresEventStore } from '../../src/store/postgres/postgres-event-store.js';
import { openSqliteEventStore } from '../../src/store/sqlite-event-store.js';
import { usePostgresServer } from '../support/postgres-scope.js';
import { batchOf, makeTempDir, sessionLog, sessionRecord } from './store-fixtures.js';
import { redisPerFile } from '../cluster/redis-fixtures.js';
import { loadSession } from '../../src/core/persistence/session-loader.js';
import { correctionsInState } from '../../src/corrections/correction-of-event.js';
import { orderKey } from '../../src/corrections/correction-order.js';
import type { EventStore } from '../../src/core/persistence/event-store.js';

const postgres = usePostgresServer();
let temp: ReturnType<typeof makeTempDir>;
beforeEach(() => {
  temp = makeTempDir();
});
afterEach(() => temp.cleanup());

/** `pnpm interthought …` as an operator runs it: the root script's command, in a process of its own. */
function interthought(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'apps/server/src/cli/interthought.ts', ...args], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Three sessions, one event a batch: 'long' (30 events, trimmed when the store retains 8), 'short' (5), 'empty' (none); the store's sharing key. */
async function fillThreeSessions(store: EventStore): Promise<string> {
  const key = await store.sharingKey();
  const lengths: Record<string, number> = { long: 30, short: 5, empty: 0 };
  for (const [index, [sessionId, length]] of Object.entries(lengths).entries()) {
    await store.createSession(sessionRecord(sessionId, `2025-01-0${index + 1}T00:00:00.000Z`));
    if (length > 0) for (const event of sessionLog(sessionId, length)) await store.appendBatch(batchOf([event]));
  }
  return key;
}

/** A SQLite file with three sessions: one of 30 events trimmed to a snapshot by retention, one of 5, one with none. */
async function sqliteFile(): Promise<{ file: string; key: string }> {
  const file = temp.file('sessions.db');
  const store = openSqliteEventStore(file, { retainEventsPerSession: 8 });
  const key = await fillThreeSessions(store);
  await store.close();
  return { file, key };
}

describe('pnpm interthought migrate --from <sqlite file> --to <postgres url>', () => {
  it('copies every session, event, snapshot and the share-link key, verifies them, and can be re-run', { timeout: 180_000 }, async () => {
    const { file, key } = await sqliteFile();
    const url = await postgres.current.createSchema();
    const first = await interthought(['migrate', '--from', file, '--to', url]);
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/Copied 3 sessions and \d+ events to postgres:\/\/postgres@127\.0\.0\.1:\d+\/postgres\?options=.*; every session's last seq and event count match\.\n$/);

    const again = await interthought(['migrate', '--from', file, '--to', url]);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('Copied 3 sessions');

    const source = openSqliteEventStore(file);
    const target = await openPostgresEventStore({ url });
    try {
      expect(await target.sharingKey()).toBe(key);
      expect(await target.listSessions({ limit: 10 })).toEqual(await source.listSessions({ limit: 10 }));
      for (const sessionId of ['long', 'short', 'empty']) {
        expect(await target.getSession(sessionId)).toEqual(await source.getSession(sessionId));
        expect(await target.readEventFrames(sessionId, 0)).toEqual(await source.readEventFrames(sessionId, 0));
        expect(await target.firstKeptSeq(sessionId)).toBe(await source.firstKeptSeq(sessionId));
        expect(await target.readSnapshot(sessionId)).toEqual(await source.readSnapshot(sessionId));
      }
      // The trimmed session really was trimmed, so its snapshot was copied, not rebuilt.
      expect(await source.readSnapshot('long')).toBeDefined();
      // The copy goes on like the original: the next append continues its last seq.
      const next = sessionLog('short', 6)[5]!;
      await target.appendBatch(batchOf([next]));
      expect((await target.getSession('short'))?.lastSeq).toBe(6);
    } finally {
      await source.close();
      await target.close();
    }
  });

  it('refuses a bad --to or a missing argument in one line, without a stack trace', { timeout: 120_000 }, async () => {
    const missing = await interthought(['migrate', '--from', temp.file('x.db')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/^migrate needs both --from and --to\./);
    const bad = await interthought(['migrate', '--from', temp.file('x.db'), '--to', 'mysql://db/x']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe('migrate: mysql://db/x is not a postgres:// or postgresql:// URL.\n');
  });
});

const redis = redisPerFile();
const SESSIONS = ['long', 'short', 'empty'];

/** A Redis-only cluster's store with the same three sessions, written by a real `RedisEventStore`. */
async function redisCluster(): Promise<{ url: string; key: string }> {
  const store = await redis.openStore({ retainEventsPerSession: 8 });
  const key = await fillThreeSessions(store);
  await store.settled();
  return { url: `unix://${redis.server.socket}`, key };
}

/** The corrections a start-up rebuild finds in `store`'s logs, newest first. */
async function rebuiltCorrections(store: EventStore): Promise<string[]> {
  const records = [];
  // 'empty' has no log to fold.
  for (const sessionId of ['long', 'short']) records.push(...correctionsInState((await loadSession(store, sessionId))!.state).map((indexed) => indexed.record));
  return records.map(orderKey).sort().reverse();
}

describe('pnpm interthought migrate --from <redis url> --to <postgres url>', () => {
  it('copies a Redis cluster\'s sessions, events, snapshots, share-link key and corrections, verifies them, and can be re-run', { timeout: 180_000 }, async () => {
    const { url: from, key } = await redisCluster();
    const to = await postgres.current.createSchema();
    const first = await interthought(['migrate', '--from', from, '--to', to]);
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/\d+ corrections indexed\n/);
    expect(first.stdout).toMatch(/Copied 3 sessions and \d+ events to postgres:\/\/.*; every session's last seq and event count match\.\n$/);
    const again = await interthought(['migrate', '--from', from, '--to', to]);
    expect(again.stderr).toBe('');
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('Copied 3 sessions');

    const source = await redis.openStore({ retainEventsPerSession: 'all' });
    const target = await openPostgresEventStore({ url: to });
    try {
      expect(await target.sharingKey()).toBe(key);
      expect(await target.listSessions({ limit: 10 })).toEqual(await source.listSessions({ limit: 10 }));
      for (const sessionId of SESSIONS) {
        expect(await target.getSession(sessionId)).toEqual(await source.getSession(sessionId));
        expect(await target.readEventFrames(sessionId, 0)).toEqual(await source.readEventFrames(sessionId, 0));
        expect(await target.firstKeptSeq(sessionId)).toBe(await source.firstKeptSeq(sessionId));
        expect(await target.readSnapshot(sessionId)).toEqual(await source.readSnapshot(sessionId));
      }
      expect(await source.readSnapshot('long')).toBeDefined();
      // The index: what a rebuild of the source's logs finds, once each though the copy ran twice.
      const expected = await rebuiltCorrections(source);
      expect(expected.length).toBeGreaterThan(0);
      const indexed = (await target.corrections.page({ filter: {}, visibility: { all: true }, limit: 100 })).corrections;
      expect(indexed.map(orderKey)).toEqual(expected);
      expect(await target.corrections.isBuilt()).toBe(true);
    } finally {
      await target.close();
    }
  });

  it('refuses a bad Redis URL (exit 2) or an unreachable one (exit 1) in one line', { timeout: 120_000 }, async () => {
    const to = await postgres.current.createSchema();
    const bad = await interthought(['migrate', '--from', 'redis://cache:port/0', '--to', to]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^migrate: redis:\/\/cache:port\/0 is not a URL \(.*\)\.\n$/);
    const hostless = await interthought(['migrate', '--from', 'redis://', '--to', to]);
    expect(hostless.code).toBe(2);
    expect(hostless.stderr).toBe('migrate: redis:// names no Redis host.\n');
    const down = await interthought(['migrate', '--from', `unix://${temp.dir}/no-redis.sock`, '--to', to]);
    expect(down.code).toBe(1);
    expect(down.stderr).toMatch(/^migrate: Redis at .*no-redis\.sock is unreachable: .*\n$/);
    expect(down.stderr.split('\n')).toHaveLength(2);
  });
});
