import type { SessionEvent } from '@interthought/protocol';
import { describe, expect, it } from 'vitest';
import { OwnedAppends, SessionsFencedError } from '../../src/cluster/owned-appends.js';
import { Ownership } from '../../src/cluster/ownership.js';
import { sessionKeys } from '../../src/cluster/redis-keys.js';
import { SessionLeases } from '../../src/cluster/session-lease.js';
import { sessionLog, sessionRecord } from '../store/store-fixtures.js';
import { batchOf, redisPerFile } from './redis-fixtures.js';

const redis = redisPerFile();

/** A node's store and ownership (its renewal and sweep timers are not started: the test decides). */
async function node(nodeId: string) {
  const store = await redis.openStore({ retainEventsPerSession: 'all' });
  const leases = new SessionLeases(store.redis, store.scripts, { nodeId, ttlMs: 10_000 });
  const ownership = new Ownership(leases, store, () => undefined, 1_000);
  return { store, leases, ownership, appends: new OwnedAppends(store, ownership) };
}

describe('OwnedAppends', () => {
  it("writes every held session of a batch in one script call, and drops only the one another node took over", async () => {
    const a = await node('node-a');
    const b = await node('node-b');
    for (const id of ['s1', 's2', 's3']) {
      await a.store.createSession(sessionRecord(id));
      expect(await a.ownership.claim(id)).toEqual({ here: true });
    }
    // Node a stalled past s3's lease, and node b took s3 over: a still thinks it holds it.
    await redis.admin.del(sessionKeys('s3').lease);
    expect((await b.leases.acquire('s3')).acquired).toBe(true);
    const [s1, s2, s3] = [sessionLog('s1', 2), sessionLog('s2', 2), sessionLog('s3', 2)];
    await redis.admin.config('RESETSTAT');

    const appending = a.appends.appendBatch(batchOf([s1[0], s2[0], s3[0], s1[1], s3[1], s2[1]] as SessionEvent[]));

    await expect(appending).rejects.toBeInstanceOf(SessionsFencedError);
    await expect(appending).rejects.toMatchObject({ code: 'FENCED', lostSessionIds: ['s3'] });
    expect(await a.store.readEvents('s1', 0)).toEqual(s1);
    expect(await a.store.readEvents('s2', 0)).toEqual(s2);
    expect(await a.store.readEvents('s3', 0)).toEqual([]);
    expect(a.appends.fencedAppends).toBe(1);
    const stats = await redis.admin.info('commandstats');
    const calls = (pattern: RegExp) => Number(pattern.exec(stats)?.[1] ?? 0);
    expect(calls(/cmdstat_eval:calls=(\d+)/) + calls(/cmdstat_evalsha:calls=(\d+)/)).toBe(1);
  });
});
