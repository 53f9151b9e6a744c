import type { SessionEvent } from '@interthought/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { decodeBatchMessage } from '../../src/cluster/batch-message.js';
import { openClusterLog, type OpenedClusterLog } from '../../src/cluster/open-cluster-log.js';
import { connectRedis, quitRedis } from '../../src/cluster/redis-connection.js';
import { sessionKeys } from '../../src/cluster/redis-keys.js';
import { leaseKeys } from '../../src/cluster/postgres/lease-scripts.js';
import { PostgresClusterLog } from '../../src/cluster/postgres/postgres-cluster-log.js';
import { usePostgresServer } from '../support/postgres-scope.js';
import { sessionLog, sessionRecord } from '../store/store-fixtures.js';
import { batchOf, redisPerFile } from './redis-fixtures.js';

const postgres = usePostgresServer();
const redis = redisPerFile();
const opened: OpenedClusterLog[] = [];
afterEach(async () => {
  await Promise.allSettled(opened.splice(0).map((node) => node.log.close()));
});

/** A node's log and leases on one shared database (`url`) and the file's Redis. */
async function node(url: string, nodeId: string, reports: unknown[] = [], ttlMs = 10_000): Promise<OpenedClusterLog> {
  const opening = await openClusterLog({
    target: redis.server.socket,
    nodeId,
    leaseTtlMs: ttlMs,
    retainEventsPerSession: undefined,
    database: { url, poolSize: 4 },
    report: (_context, error) => reports.push(error),
  });
  opened.push(opening);
  return opening;
}

async function storedEpoch(log: OpenedClusterLog['log'], sessionId: string): Promise<number> {
  const { rows } = await (log as PostgresClusterLog).store.connections.query<{ epoch: number }>('SELECT epoch FROM sessions WHERE id = $1', [sessionId]);
  return rows[0]!.epoch;
}

async function setStoredEpoch(log: OpenedClusterLog['log'], sessionId: string, epoch: number): Promise<void> {
  await (log as PostgresClusterLog).store.connections.query('UPDATE sessions SET epoch = $2 WHERE id = $1', [sessionId, epoch]);
}

describe('Leases over a Postgres log', () => {
  it('take the epoch above the floor Postgres has, raise Postgres to it, and refuse an unknown session', async () => {
    const url = await postgres.current.createSchema();
    const a = await node(url, 'a');
    const b = await node(url, 'b');
    await a.log.createSession(sessionRecord('s1'));
    await setStoredEpoch(a.log, 's1', 5);

    const taken = await a.leases.acquire('s1');
    expect(taken).toEqual({ acquired: true, lease: { sessionId: 's1', nodeId: 'a', epoch: 6, value: 'a:6' } });
    expect(await storedEpoch(a.log, 's1')).toBe(6);
    expect(await redis.admin.get(leaseKeys('s1').counter)).toBe('6');
    expect(await b.leases.acquire('s1')).toEqual({ acquired: false, holder: { nodeId: 'a', epoch: 6 } });
    await expect(a.leases.acquire('nope')).rejects.toMatchObject({ code: 'SESSION_NOT_FOUND' });
  });

  it('keep epochs growing after Redis lost every key: the counter restarts, the floor does not', async () => {
    const url = await postgres.current.createSchema();
    const a = await node(url, 'a');
    const b = await node(url, 'b');
    await a.log.createSession(sessionRecord('s1'));
    for (let i = 0; i < 3; i += 1) {
      const attempt = await a.leases.acquire('s1');
      if (!attempt.acquired) throw new Error('not acquired');
      await a.leases.release(attempt.lease);
    }
    expect(await storedEpoch(a.log, 's1')).toBe(3);
    await redis.admin.flushall();

    const taken = await b.leases.acquire('s1');
    expect(taken).toMatchObject({ acquired: true, lease: { nodeId: 'b', epoch: 4 } });
    expect(await storedEpoch(b.log, 's1')).toBe(4);
  });

  it("give a kept lease back and take it anew when Postgres moved past it (a node raised the epoch meanwhile)", async () => {
    const url = await postgres.current.createSchema();
    const a = await node(url, 'a');
    await a.log.createSession(sessionRecord('s1'));
    // Redis still has a:2 of this node, but another node took the session at 9 since (its lease is gone).
    await redis.admin.set(leaseKeys('s1').lease, 'a:2', 'PX', 10_000);
    await setStoredEpoch(a.log, 's1', 9);

    expect(await a.leases.acquire('s1')).toMatchObject({ acquired: true, lease: { nodeId: 'a', epoch: 10, value: 'a:10' } });
    expect(await storedEpoch(a.log, 's1')).toBe(10);
  });

  it("re-create a live owner's lease Redis lost at its renewal, unless a node took the session over meanwhile", async () => {
    const url = await postgres.current.createSchema();
    const a = await node(url, 'a');
    const b = await node(url, 'b');
    await a.log.createSession(sessionRecord('s1'));
    await a.log.createSession(sessionRecord('s2'));
    const one = await a.leases.acquire('s1');
    const two = await a.leases.acquire('s2');
    if (!one.acquired || !two.acquired) throw new Error('not acquired');
    await redis.admin.flushall();

    expect(await a.leases.renew(one.lease)).toBe(true);
    expect(await redis.admin.get(leaseKeys('s1').lease)).toBe('a:1');
    expect(Number(await redis.admin.get(leaseKeys('s1').counter))).toBeGreaterThanOrEqual(1);
    expect(await b.leases.acquire('s1')).toEqual({ acquired: false, holder: { nodeId: 'a', epoch: 1 } });

    // s2: node b takes it over and lets it go before a renews; a's lease comes back only to be given up.
    const taken = await b.leases.acquire('s2');
    if (!taken.acquired) throw new Error('not acquired');
    await b.leases.release(taken.lease);
    expect(await a.leases.renew(two.lease)).toBe(false);
    expect(await redis.admin.get(leaseKeys('s2').lease)).toBeNull();
  });

  it('count a run orphaned only when its lease is missing on two sweeps at least a TTL apart', async () => {
    const url = await postgres.current.createSchema();
    const a = await node(url, 'a', [], 300);
    const b = await node(url, 'b', [], 300);
    await a.log.createSession(sessionRecord('s1'));
    const lease = await a.leases.acquire('s1');
    if (!lease.acquired) throw new Error('not acquired');
    await a.leases.markActive('s1');
    expect(await b.leases.orphans()).toEqual([]);

    await redis.admin.flushall();
    expect(await b.leases.orphans()).toEqual([]);
    // The owner is alive: it re-creates its lease before the second look, and renews it.
    expect(await a.leases.renew(lease.lease)).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 175));
    expect(await a.leases.renew(lease.lease)).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 175));
    expect(await b.leases.orphans()).toEqual([]);

    // The owner is gone: missing now, and still missing a TTL later.
    await redis.admin.flushall();
    expect(await b.leases.orphans()).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, 350));
    expect(await b.leases.orphans()).toEqual(['s1']);

    // An idle session is nobody's to take over.
    await a.leases.markIdle('s1');
    await new Promise((resolve) => setTimeout(resolve, 350));
    expect(await b.leases.orphans()).toEqual([]);
  });
});

describe('The fenced append of a Postgres log', () => {
  it('writes each held session of a batch in one transaction, refuses the one another node fenced off, and publishes what it wrote', async () => {
    const url = await postgres.current.createSchema();
    const a = await node(url, 'a');
    const b = await node(url, 'b');
    for (const id of ['s1', 's2']) {
      await a.log.createSession(sessionRecord(id));
      const attempt = await a.leases.acquire(id);
      if (!attempt.acquired) throw new Error('not acquired');
      a.log.fence(id, attempt.lease.epoch);
    }
    // Node b took s2 over (a stalled past its lease): Postgres has b's epoch now.
    await redis.admin.del(sessionKeys('s2').lease);
    expect(await b.leases.acquire('s2')).toMatchObject({ acquired: true, lease: { epoch: 2 } });

    const subscriber = await connectRedis(redis.server.socket);
    const messages: string[] = [];
    subscriber.on('smessage', (_channel: string, message: string) => messages.push(message));
    await subscriber.ssubscribe(sessionKeys('s1').channel, sessionKeys('s2').channel);
    const written: Array<[string, number, number]> = [];
    a.log.onWritten((sessionId, frames, firstSeq) => written.push([sessionId, firstSeq, frames.length]));
    const [s1, s2] = [sessionLog('s1', 3), sessionLog('s2', 3)];
    const batch = batchOf([s1[0], s2[0], s1[1], s2[1], s1[2], s2[2]] as SessionEvent[]);

    const results = await a.log.appendSessions(batch);

    expect(results.get('s1')).toEqual({ status: 'fulfilled', value: undefined });
    expect(results.get('s2')).toMatchObject({ status: 'rejected', reason: { code: 'FENCED' } });
    expect(await a.log.readEvents('s1', 0)).toEqual(s1);
    expect(await a.log.readEvents('s2', 0)).toEqual([]);
    expect((await a.log.getSession('s2'))?.lastSeq).toBe(0);
    expect(written).toEqual([['s1', 1, 3]]);
    await expect.poll(() => messages.length).toBe(1);
    expect(decodeBatchMessage(messages[0]!)).toEqual({ firstSeq: 1, frames: s1.map((event) => JSON.stringify(event)) });

    // The same batch again (its commit's answer lost): s1 counts as written, nothing twice.
    const again = await a.log.appendSessions(batchOf(s1));
    expect(again.get('s1')).toEqual({ status: 'fulfilled', value: undefined });
    expect(await a.log.readEvents('s1', 0)).toEqual(s1);
    // A batch that does not continue the log is refused as such.
    const gap = await a.log.appendSessions(batchOf(sessionLog('s1', 6).slice(4)));
    expect(gap.get('s1')).toMatchObject({ status: 'rejected', reason: { code: 'SEQ_NOT_CONTIGUOUS' } });
    await quitRedis(subscriber);
  });

  it('is written and reported when the publish fails: the events are durable, followers read them from Postgres', async () => {
    const url = await postgres.current.createSchema();
    const reports: unknown[] = [];
    const a = await node(url, 'a', reports);
    await a.log.createSession(sessionRecord('s1'));
    const attempt = await a.leases.acquire('s1');
    if (!attempt.acquired) throw new Error('not acquired');
    a.log.fence('s1', attempt.lease.epoch);
    // Redis is gone for this node: no reconnect, no offline queue.
    a.redis.disconnect(false);

    const results = await a.log.appendSessions(batchOf(sessionLog('s1', 2)));

    expect(results.get('s1')).toEqual({ status: 'fulfilled', value: undefined });
    expect(await a.log.readEvents('s1', 0)).toEqual(sessionLog('s1', 2));
    await expect.poll(() => reports.length).toBe(1);
  });
});
