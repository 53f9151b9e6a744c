import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it, vi } from 'vitest';
import { sessionKeys } from '../../src/cluster/redis-keys.js';
import { SessionLeases, type SessionLease } from '../../src/cluster/session-lease.js';
import type { RedisEventStore } from '../../src/cluster/redis-event-store.js';
import { sessionLog, sessionRecord } from '../store/store-fixtures.js';
import { batchOf, redisPerFile } from './redis-fixtures.js';

const redis = redisPerFile();

/** A node: its own connection, store and leases. */
async function node(nodeId: string, ttlMs = 10_000): Promise<{ store: RedisEventStore; leases: SessionLeases }> {
  const store = await redis.openStore({ retainEventsPerSession: 'all' });
  return { store, leases: new SessionLeases(store.redis, store.scripts, { nodeId, ttlMs }) };
}

async function acquired(leases: SessionLeases, sessionId: string): Promise<SessionLease> {
  const attempt = await leases.acquire(sessionId);
  if (!attempt.acquired) throw new Error(`expected to acquire ${sessionId}, held by ${attempt.holder.nodeId}`);
  return attempt.lease;
}

describe('SessionLeases', () => {
  it('takes a missing lease with the next epoch and tells others who holds it', async () => {
    const a = await node('node-a');
    const b = await node('node-b');
    await a.store.createSession(sessionRecord('s'));

    const lease = await acquired(a.leases, 's');
    expect(lease).toEqual({ sessionId: 's', nodeId: 'node-a', epoch: 1, value: 'node-a:1' });
    expect(await b.leases.acquire('s')).toEqual({ acquired: false, holder: { nodeId: 'node-a', epoch: 1 } });
    expect(await b.leases.holder('s')).toEqual({ nodeId: 'node-a', epoch: 1 });
    // Asking again for a lease this node holds keeps it (an acquire resent after a lost reply).
    expect(await a.leases.acquire('s')).toEqual({ acquired: true, lease });
  });

  it('renews and releases only a lease that is still ours', async () => {
    const a = await node('node-a', 200);
    const b = await node('node-b', 200);
    await a.store.createSession(sessionRecord('s'));
    const lease = await acquired(a.leases, 's');

    expect(await a.leases.renew(lease)).toBe(true);
    expect(await redis.admin.pttl(sessionKeys('s').lease)).toBeGreaterThan(100);
    expect(await a.leases.release(lease)).toBe(true);
    expect(await a.leases.holder('s')).toBeUndefined();

    const taken = await acquired(b.leases, 's');
    expect(taken.epoch).toBe(2);
    expect(await a.leases.renew(lease)).toBe(false);
    expect(await a.leases.release(lease)).toBe(false);
    expect(await b.leases.holder('s')).toEqual({ nodeId: 'node-b', epoch: 2 });
  });

  it('refuses a lease on an unknown session', async () => {
    const a = await node('node-a');
    await expect(a.leases.acquire('ghost')).rejects.toMatchObject({ name: 'EventStoreError', code: 'SESSION_NOT_FOUND' });
    expect(await redis.admin.exists(sessionKeys('ghost').lease)).toBe(0);
  });

  it('lists active sessions whose lease is missing, for the takeover sweep', async () => {
    const a = await node('node-a', 100);
    for (const id of ['held', 'expiring', 'idle']) await a.store.createSession(sessionRecord(id));
    await acquired(a.leases, 'held');
    await acquired(a.leases, 'expiring');
    await a.leases.markActive('held');
    await a.leases.markActive('expiring');
    expect(await a.leases.orphans()).toEqual([]);

    const longLived = new SessionLeases(a.store.redis, a.store.scripts, { nodeId: 'node-a', ttlMs: 10_000 });
    await longLived.acquire('held');
    // Real time on purpose: leases expire by the real redis-server's PEXPIRE clock, which no fake timer moves.
    await sleep(150);
    expect(await a.leases.orphans()).toEqual(['expiring']);
    await a.leases.markIdle('expiring');
    expect(await a.leases.orphans()).toEqual([]);
  });
});

describe('Fenced appends', () => {
  it("refuses the old owner's append after a takeover by lease expiry, and writes nothing", async () => {
    const a = await node('node-a', 100);
    const b = await node('node-b', 10_000);
    const watcher = await redis.connect();
    const published: string[] = [];
    watcher.on('smessage', (_channel: string, message: string) => published.push(message));
    await watcher.ssubscribe(sessionKeys('s').channel);

    await a.store.createSession(sessionRecord('s'));
    const log = sessionLog('s', 6);
    const leaseA = await acquired(a.leases, 's');
    a.store.fence('s', leaseA.epoch);
    await a.store.appendBatch(batchOf(log.slice(0, 2)));

    // A stalls (a GC pause, SIGSTOP) past its TTL; B takes the session over.
    await sleep(150);
    const leaseB = await acquired(b.leases, 's');
    expect(leaseB.epoch).toBe(leaseA.epoch + 1);
    b.store.fence('s', leaseB.epoch);

    await expect(a.store.appendBatch(batchOf(log.slice(2, 4)))).rejects.toMatchObject({ name: 'EventStoreError', code: 'FENCED' });
    expect((await b.store.getSession('s'))?.lastSeq).toBe(2);
    expect(await redis.admin.xlen(sessionKeys('s').log)).toBe(2);

    await b.store.appendBatch(batchOf(log.slice(2, 4)));
    expect(await b.store.readEvents('s', 0)).toEqual(log.slice(0, 4));
    // A woken zombie stays refused, even with seqs that continue the log.
    await expect(a.store.appendBatch(batchOf(log.slice(4, 6)))).rejects.toMatchObject({ code: 'FENCED' });
    expect(await b.store.readEvents('s', 0)).toEqual(log.slice(0, 4));

    await vi.waitFor(() => expect(published.map((message) => message.split('\n')[0])).toEqual(['1', '3']));
  });

  it('refuses the old owner after its lease was deleted and taken, with summaries left untouched', async () => {
    const a = await node('node-a');
    const b = await node('node-b');
    await a.store.createSession(sessionRecord('s'));
    a.store.fence('s', (await acquired(a.leases, 's')).epoch);
    await redis.admin.del(sessionKeys('s').lease);
    b.store.fence('s', (await acquired(b.leases, 's')).epoch);

    const failed = { ...sessionRecord('s').info, status: 'failed' as const };
    await expect(a.store.appendBatch(batchOf(sessionLog('s', 1), [failed]))).rejects.toMatchObject({ code: 'FENCED' });
    await expect(a.store.appendBatch(batchOf([], [failed]))).rejects.toMatchObject({ code: 'FENCED' });
    expect(await b.store.getSession('s')).toEqual(sessionRecord('s'));
    expect(await b.store.listSessionsByStatus('failed')).toEqual([]);
  });

  it('appends unfenced when the store is not told an epoch', async () => {
    const a = await node('node-a');
    await a.store.createSession(sessionRecord('s'));
    a.store.fence('s', 7);
    await expect(a.store.appendBatch(batchOf(sessionLog('s', 1)))).rejects.toMatchObject({ code: 'FENCED' });
    a.store.unfence('s');
    expect(a.store.epochOf('s')).toBeUndefined();
    await a.store.appendBatch(batchOf(sessionLog('s', 1)));
    expect((await a.store.getSession('s'))?.lastSeq).toBe(1);
  });
});
