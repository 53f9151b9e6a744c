import { describe, expect, it } from 'vitest';
import { sessionKeys } from '../../src/cluster/redis-keys.js';
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
});
