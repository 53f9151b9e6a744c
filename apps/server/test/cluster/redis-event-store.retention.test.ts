import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { RedisEventStore } from '../../src/cluster/redis-event-store.js';
import { DEFAULT_RETAINED_EVENTS } from '../../src/cluster/redis-retention.js';
import { sessionLog, sessionRecord } from '../store/store-fixtures.js';
import { batchOf, redisPerFile } from './redis-fixtures.js';

// Retention as every store does it is held to the contract (redis-event-store.contract.test.ts);
// this file keeps the Redis trim script's race and the Redis store's retention options.

const KEEP = 8;
/** KEEP + KEEP / 4: the longest a log may grow before it is trimmed back to KEEP. */
const MAX_KEPT = 10;

const redis = redisPerFile();

describe('RedisEventStore retention', () => {
  it('leaves the log alone when another trim moved its start since the snapshot was folded', async () => {
    const store = await redis.openStore({ retainEventsPerSession: KEEP });
    await store.createSession(sessionRecord('r'));
    const log = sessionLog('r', MAX_KEPT);
    await store.appendBatch(batchOf(log));
    // A trim that read firstSeq 1 loses the race to one that already moved it to 4.
    await redis.admin.hset('it:{r}:meta', 'firstSeq', 4);
    expect(await store.scripts.trim(['it:{r}:meta', 'it:{r}:log', 'it:{r}:snap'], [1, 3, '{}'])).toBe(0);
    expect(await store.readEvents('r', 0)).toEqual(log);
    expect(await store.readSnapshot('r')).toBeUndefined();
  });

  it('trims behind its appends: settled() resolves once the trim under way has landed', async () => {
    const store = await redis.openStore({ retainEventsPerSession: KEEP });
    await store.createSession(sessionRecord('r'));
    const log = sessionLog('r', MAX_KEPT + 1);
    await store.appendBatch(batchOf(log));
    await store.settled();
    // Read past the store (its own reads wait for its trims anyway): the log is trimmed in Redis.
    expect(await redis.admin.xlen('it:{r}:log')).toBe(KEEP);
    expect(await redis.admin.hget('it:{r}:meta', 'firstSeq')).toBe(String(MAX_KEPT + 1 - KEEP + 1));
    expect(await store.readEvents('r', 0)).toEqual(log.slice(MAX_KEPT + 1 - KEEP));
  });

  it('retains by default, and refuses a limit that is not a positive integer', async () => {
    const client = { defineCommand: () => undefined } as unknown as Redis;
    expect(DEFAULT_RETAINED_EVENTS).toBeGreaterThan(0);
    expect(() => new RedisEventStore(client, { retainEventsPerSession: 0 })).toThrow(/positive integer/);
    expect(() => new RedisEventStore(client, { retainEventsPerSession: 2.5 })).toThrow(/positive integer/);
  });
});
