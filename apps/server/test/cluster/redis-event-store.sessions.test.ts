import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { listEntry, ownerSessionsKey, sessionKeys } from '../../src/cluster/redis-keys.js';
import type { SessionRecord } from '../../src/core/persistence/event-store.js';
import { sessionLog, sessionRecord } from '../store/store-fixtures.js';
import { batchOf, redisPerFile } from './redis-fixtures.js';

// The session records and lists every store shares are held to the contract
// (redis-event-store.contract.test.ts); this file keeps the Redis key layout.

const redis = redisPerFile();

describe('RedisEventStore sessions', () => {
  it('deletes every key of a session, its lease among them, and its entries in the lists and the active set', async () => {
    const store = await redis.openStore({ retainEventsPerSession: 4 });
    await store.createSession(sessionRecord('gone'));
    await store.createSession(sessionRecord('kept'));
    await store.appendBatch(batchOf(sessionLog('gone', 12)));
    await redis.admin.set(sessionKeys('gone').lease, 'node-a:1');
    await redis.admin.sadd('it:active', 'gone', 'kept');
    expect(await redis.admin.exists(sessionKeys('gone').meta, sessionKeys('gone').log, sessionKeys('gone').snap)).toBe(3);

    await store.deleteSession('gone');

    expect(await redis.admin.keys('it:{gone}*')).toEqual([]);
    expect(await redis.admin.smembers('it:active')).toEqual(['kept']);
    expect(await redis.admin.zcard('it:by-status')).toBe(1);
    expect(await redis.admin.zcard('it:sessions')).toBe(1);
  });

  it("lists a session under its owner in the script that makes it, and takes it off there in the script that deletes it", async () => {
    const store = await redis.openStore({ retainEventsPerSession: 'all' });
    const owned = (id: string): SessionRecord => {
      const record = sessionRecord(id);
      return { ...record, info: { ...record.info, owner: { id: 'ada', name: 'Ada' } } };
    };
    const ada = ownerSessionsKey('ada');
    // Every command Redis runs, and whether a script ran it ("lua") or the node sent it itself.
    const monitor = await redis.admin.duplicate().monitor();
    onTestFinished(() => void monitor.disconnect());
    const seen: string[] = [];
    monitor.on('monitor', (_time: string, args: string[], source: string) => seen.push(`${source === 'lua' ? 'script' : 'node'} ${args[0]?.toLowerCase()} ${args[1] ?? ''}`));
    let marks = 0;
    const listWrites = async () => {
      // MONITOR hears a command a moment after it ran, in order: a PING of our own marks the end.
      const mark = `mark-${++marks}`;
      await redis.admin.ping(mark);
      await vi.waitFor(() => expect(seen).toContain(`node ping ${mark}`));
      const writes = seen.filter((line) => / (zadd|zrem) /.test(line));
      seen.length = 0;
      return writes;
    };
    await store.createSession(owned('mine'));
    await store.createSession(sessionRecord('nobody'));
    // Listed by the create scripts alone: under its owner too for the owned session.
    expect(await listWrites()).toEqual([
      'script zadd it:sessions',
      'script zadd it:by-status',
      `script zadd ${ada}`,
      'script zadd it:sessions',
      'script zadd it:by-status',
    ]);
    const entry = listEntry(owned('mine').info.createdAt, 'mine');
    expect(await redis.admin.zrange(ada, '0', '-1')).toEqual([entry]);
    expect((await store.listSessions({ limit: 10, ownerId: 'ada' })).sessions.map((info) => info.sessionId)).toEqual(['mine']);

    await store.deleteSession('mine');
    expect(await listWrites()).toEqual(['script zrem it:sessions', `script zrem ${ada}`, 'script zrem it:by-status']);
    expect(await redis.admin.exists(ada)).toBe(0);
    expect(await redis.admin.zcard('it:sessions')).toBe(1);
    await store.deleteSession('nobody');
    expect(await redis.admin.zcard('it:sessions')).toBe(0);
  });
});
