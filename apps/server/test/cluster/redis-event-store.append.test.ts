import { join } from 'node:path';
import type { SessionEvent } from '@interthought/protocol';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { connectRedis } from '../../src/cluster/redis-connection.js';
import { RedisEventStore } from '../../src/cluster/redis-event-store.js';
import { sessionKeys, BY_STATUS_KEY } from '../../src/cluster/redis-keys.js';
import { sessionLog, sessionRecord } from '../store/store-fixtures.js';
import { batchOf, redisPerFile } from './redis-fixtures.js';
import { startReplyCuttingProxy } from './reply-cutting-proxy.js';

const redis = redisPerFile();

async function storeWith(...sessionIds: string[]) {
  const store = await redis.openStore({ retainEventsPerSession: 'all' });
  for (const id of sessionIds) await store.createSession(sessionRecord(id));
  return store;
}

// The appends every store shares are held to the contract (redis-event-store.contract.test.ts);
// this file keeps what the Redis store does alone: one-line frames, retries and resends.

describe('RedisEventStore appends', () => {
  it('refuses a frame with a raw line feed, and leaves no keys behind for a refused batch', async () => {
    const store = await storeWith('a');
    await expect(store.appendBatch(batchOf(sessionLog('ghost', 1)))).rejects.toMatchObject({ code: 'SESSION_NOT_FOUND' });
    const [event] = sessionLog('a', 1) as [SessionEvent];
    await expect(store.appendBatch({ events: [event], frames: ['{\n"seq":1}'] })).rejects.toMatchObject({ code: 'BAD_EVENT' });
    expect(await redis.admin.exists(sessionKeys('a').log, sessionKeys('ghost').meta)).toBe(0);
  });

  it('accepts a retried batch that repeats what was already written, writing only the rest', async () => {
    const store = await storeWith('a', 'b');
    const a = sessionLog('a', 6);
    const b = sessionLog('b', 2);
    await store.appendBatch(batchOf(a.slice(0, 3)));
    // The core retries a failed batch with what queued meanwhile appended to it.
    await store.appendBatch(batchOf([...a.slice(0, 3), b[0], b[1], ...a.slice(3)] as SessionEvent[]));
    await store.appendBatch(batchOf(a.slice(2)));

    expect(await store.readEvents('a', 0)).toEqual(a);
    expect(await store.readEvents('b', 0)).toEqual(b);
    expect(await redis.admin.xlen(sessionKeys('a').log)).toBe(6);
  });

  it('says which sessions of a refused batch were written, and a retry of the whole batch completes it', async () => {
    const store = await storeWith('a');
    const a = sessionLog('a', 2);
    const late = sessionLog('late', 2);
    const batch = batchOf([a[0], late[0], a[1], late[1]] as SessionEvent[]);
    const refusal = store.appendBatch(batch);
    await expect(refusal).rejects.toMatchObject({ code: 'SESSION_NOT_FOUND' });
    await expect(refusal).rejects.toThrow(/events of a were written/);
    expect(await store.readEvents('a', 0)).toEqual(a);

    await store.createSession(sessionRecord('late'));
    await store.appendBatch(batch);
    expect(await store.readEvents('a', 0)).toEqual(a);
    expect(await store.readEvents('late', 0)).toEqual(late);
  });

  it('hands each written session part to its listener as Redis answered, byte for byte, and nothing of a refused one', async () => {
    const store = await storeWith('a', 'b');
    const written: Array<{ sessionId: string; frames: readonly string[]; firstSeq: number }> = [];
    store.onWritten((sessionId, frames, firstSeq) => written.push({ sessionId, frames, firstSeq }));
    const a = sessionLog('a', 4);
    const b = sessionLog('b', 2);
    const late = sessionLog('late', 1);
    await store.appendBatch(batchOf(a.slice(0, 1)));
    const batch = batchOf([a[1], b[0], late[0], a[2], b[1], a[3]] as SessionEvent[]);
    await expect(store.appendBatch(batch)).rejects.toMatchObject({ code: 'SESSION_NOT_FOUND' });

    expect(written).toEqual([
      { sessionId: 'a', frames: await store.readEventFrames('a', 0, 1), firstSeq: 1 },
      { sessionId: 'a', frames: await store.readEventFrames('a', 1), firstSeq: 2 },
      { sessionId: 'b', frames: await store.readEventFrames('b', 0), firstSeq: 1 },
    ]);
  });

  it('appends a batch of several sessions in one script call, each session answered on its own', async () => {
    const store = await storeWith('a', 'b', 'c');
    await redis.admin.config('RESETSTAT');
    await store.appendBatch(batchOf([...sessionLog('a', 2), ...sessionLog('b', 2), ...sessionLog('c', 2)]));
    const stats = await redis.admin.info('all');
    const count = (pattern: RegExp) => Number(pattern.exec(stats)?.[1] ?? 0);
    // One script call (EVAL the first time on a connection, EVALSHA after), not one per session.
    expect(count(/cmdstat_eval:calls=(\d+)/) + count(/cmdstat_evalsha:calls=(\d+)/)).toBe(1);
    // The batch's one read, and the INFO that asks.
    expect(count(/total_reads_processed:(\d+)/)).toBeLessThanOrEqual(2);

    const keys = (id: string) => [sessionKeys(id).meta, sessionKeys(id).log, BY_STATUS_KEY] as [string, string, string];
    const next = (id: string) => JSON.stringify(sessionLog(id, 3)[2]);
    const replies = await store.scripts.appendEach([
      { keys: keys('a'), args: ['', 2, 'batch-2', '', '', sessionKeys('a').channel, next('a')] },
      { keys: keys('ghost'), args: ['', 0, 'batch-2', '', '', sessionKeys('ghost').channel, next('ghost')] },
      { keys: keys('c'), args: ['', 2, 'batch-2', '', '', sessionKeys('c').channel, next('c')] },
    ]);
    expect(replies.map((reply) => reply.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(replies[2]).toEqual({ status: 'fulfilled', value: [3, 1] });
    expect(String((replies[1] as PromiseRejectedResult).reason)).toMatch(/SESSION_NOT_FOUND/);
  });

  it('applies a resent script call with the same batch id once', async () => {
    const store = await storeWith('a');
    const log = sessionLog('a', 3);
    const keys = sessionKeys('a');
    const frames = log.map((event) => JSON.stringify(event));
    const call = () => store.scripts.append([keys.meta, keys.log, BY_STATUS_KEY], ['', 0, 'batch-1', '', '', keys.channel, ...frames]);

    expect(await call()).toEqual([3, 1]);
    // The resend (ioredis resends an unanswered command after a reconnect) expects lastSeq 0 again.
    expect(await call()).toEqual([3, 1]);
    expect(await store.readEventFrames('a', 0)).toEqual(frames);
    expect(await redis.admin.hget(keys.meta, 'lastBatch')).toBe('batch-1');
  });

  it('applies an append whose reply was lost once: the client resends it and the script knows it', async () => {
    const proxy = await startReplyCuttingProxy(redis.server.socket, join(redis.server.dir, 'proxy.sock'));
    const store = new RedisEventStore(await connectRedis(proxy.socket), { retainEventsPerSession: 'all' });
    onTestFinished(async () => {
      await store.close();
      await proxy.close();
    });
    const watcher = await redis.connect();
    const published: string[] = [];
    watcher.on('smessage', (_channel: string, message: string) => published.push(message));
    await watcher.ssubscribe(sessionKeys('a').channel);
    await store.createSession(sessionRecord('a'));
    const log = sessionLog('a', 5);
    await store.appendBatch(batchOf(log.slice(0, 2)));

    proxy.cutNextReply();
    await store.appendBatch(batchOf(log.slice(2)));

    expect(proxy.cuts).toBe(1);
    expect(await store.readEvents('a', 0)).toEqual(log);
    expect(await redis.admin.xlen(sessionKeys('a').log)).toBe(5);
    await vi.waitFor(() => expect(published.map((message) => message.split('\n')[0])).toEqual(['1', '3']));
  });
});
