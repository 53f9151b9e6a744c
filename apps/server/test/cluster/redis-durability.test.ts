import type { SessionEvent } from '@interthought/protocol';
import { describe, expect, it } from 'vitest';
import { SessionLeases } from '../../src/cluster/session-lease.js';
import { startRedisServer } from '../support/redis-server.js';
import { sessionInfo, sessionLog, sessionRecord } from '../store/store-fixtures.js';
import { batchOf, redisPerFile } from './redis-fixtures.js';

const redis = redisPerFile({ durable: true });

describe('Redis with appendfsync always', () => {
  it('keeps every acknowledged append across a kill -9 of Redis', async () => {
    const store = await redis.openStore({ retainEventsPerSession: 16 });
    const ids = ['s1', 's2', 's3'];
    for (const id of ids) await store.createSession(sessionRecord(id));
    const logs = new Map(ids.map((id) => [id, sessionLog(id, 60)]));
    // Three writers at once, as the outboxes of three sessions would be.
    await Promise.all(
      ids.map(async (id) => {
        const log = logs.get(id) ?? [];
        for (let i = 0; i < log.length; i += 3) await store.appendBatch(batchOf(log.slice(i, i + 3)));
      }),
    );
    const completed = { ...sessionInfo('s2'), status: 'completed' as const };
    await store.appendBatch(batchOf([], [completed]));
    const leases = new SessionLeases(store.redis, store.scripts, { nodeId: 'node-a', ttlMs: 60_000 });
    await leases.acquire('s1');
    const before = await Promise.all(ids.map(async (id) => [await store.readEventFrames(id, 0), await store.readSnapshot(id)]));

    await redis.server.kill('SIGKILL');
    await redis.server.restart();

    const reopened = await redis.openStore({ retainEventsPerSession: 16 });
    for (const [index, id] of ids.entries()) {
      expect((await reopened.getSession(id))?.lastSeq).toBe(60);
      expect([await reopened.readEventFrames(id, 0), await reopened.readSnapshot(id)]).toEqual(before[index]);
    }
    expect((await reopened.listSessionsByStatus('completed')).map((record) => record.info)).toEqual([completed]);
    expect((await reopened.listSessions({ limit: 10 })).sessions).toHaveLength(3);
    // The epoch survives too, so a takeover after the restart still outranks the owner before it.
    const other = new SessionLeases(reopened.redis, reopened.scripts, { nodeId: 'node-b', ttlMs: 60_000 });
    expect(await other.holder('s1')).toEqual({ nodeId: 'node-a', epoch: 1 });
  });

  it('lands an append sent while Redis is down once it is back, exactly once', async () => {
    const store = await redis.openStore({ retainEventsPerSession: 'all' });
    await store.createSession(sessionRecord('s'));
    const log = sessionLog('s', 6);
    await store.appendBatch(batchOf(log.slice(0, 3)));

    await redis.server.kill('SIGKILL');
    const pending = store.appendBatch(batchOf(log.slice(3)));
    await redis.server.restart();
    await pending;

    expect(await store.readEvents('s', 0)).toEqual(log);
    await store.appendBatch(batchOf(sessionLog('s', 7).slice(6) as SessionEvent[]));
    expect((await store.getSession('s'))?.lastSeq).toBe(7);
  });
});

describe('The redis-server harness', () => {
  it('fails with how to install Redis when the binary is missing, never skips', async () => {
    await expect(startRedisServer({ binary: 'redis-server-that-is-not-installed' })).rejects.toThrow(/apt-get install -y redis-server/);
  });
});
