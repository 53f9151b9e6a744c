import { describe, expect, it } from 'vitest';
import { Ownership } from '../../src/cluster/ownership.js';
import { SessionLeases } from '../../src/cluster/session-lease.js';
import { sessionRecord } from '../store/store-fixtures.js';
import { redisPerFile } from './redis-fixtures.js';

const redis = redisPerFile();

/** A node's store and ownership (its renewal and sweep timers are not started: the test decides). */
async function node(nodeId: string) {
  const store = await redis.openStore({ retainEventsPerSession: 'all' });
  const leases = new SessionLeases(store.redis, store.scripts, { nodeId, ttlMs: 10_000 });
  return { store, leases, ownership: new Ownership(leases, store, () => undefined, 1_000) };
}

describe('Ownership while a session is let go', () => {
  it('a claim made during the release waits for it and takes the lease anew, so the node that says it holds the session really does', async () => {
    const a = await node('node-a');
    const b = await node('node-b');
    await a.store.createSession(sessionRecord('s'));
    expect(await a.ownership.claim('s')).toEqual({ here: true });

    // The session finished and is let go; a command for it arrives before the lease is gone.
    const releasing = a.ownership.release('s');
    const claiming = a.ownership.claim('s');
    await releasing;
    expect(await claiming).toEqual({ here: true });

    expect(a.ownership.holds('s')).toBe(true);
    expect(await a.ownership.holder('s')).toMatchObject({ nodeId: 'node-a', epoch: 2 });
    // Another node is told who holds it, instead of taking a lease the holder believes is its own.
    expect(await b.ownership.claim('s')).toEqual({ here: false, holder: expect.objectContaining({ nodeId: 'node-a' }) });
  });
});
