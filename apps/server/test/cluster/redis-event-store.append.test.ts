import { join } from 'node:path';
import type { SessionEvent } from '@interthought/protocol';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { connectRedis } from '../../src/cluster/redis-connection.js';
import { RedisEventStore } from '../../src/cluster/redis-event-store.js';
import { correctionTriple } from '../../src/cluster/redis-corrections.js';
import { sessionKeys, BY_STATUS_KEY, CORRECTIONS_KEY, sessionCorrectionsKey } from '../../src/cluster/redis-keys.js';
import type { AppendCall } from '../../src/cluster/redis-scripts.js';
import type { IndexedCorrection } from '../../src/corrections/correction-index.js';
import { orderKey } from '../../src/corrections/correction-order.js';
import { correctionRecord, sessionLog, sessionRecord } from '../store/store-fixtures.js';
import { batchOf, redisPerFile } from './redis-fixtures.js';
import { startReplyCuttingProxy } from './reply-cutting-proxy.js';

const redis = redisPerFile();

/** The keys of one session's append script call. */
const appendKeys = (id: string): AppendCall['keys'] => [sessionKeys(id).meta, sessionKeys(id).log, BY_STATUS_KEY, sessionCorrectionsKey(id), CORRECTIONS_KEY];

/** A correction of the session's `step`, as the core indexes it. */
function indexedCorrection(sessionId: string, step: number): IndexedCorrection {
  return { record: correctionRecord(sessionId, step, `2025-01-01T00:00:0${step}.000Z`), ownerId: 'ada' };
}

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

    const next = (id: string) => JSON.stringify(sessionLog(id, 3)[2]);
    const replies = await store.scripts.appendEach([
      { keys: appendKeys('a'), args: ['', 2, 'batch-2', '', '', sessionKeys('a').channel, 0, next('a')] },
      { keys: appendKeys('ghost'), args: ['', 0, 'batch-2', '', '', sessionKeys('ghost').channel, 0, next('ghost')] },
      { keys: appendKeys('c'), args: ['', 2, 'batch-2', '', '', sessionKeys('c').channel, 0, next('c')] },
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
    const call = () => store.scripts.append(appendKeys('a'), ['', 0, 'batch-1', '', '', keys.channel, 0, ...frames]);

    expect(await call()).toEqual([3, 1]);
    // The resend (ioredis resends an unanswered command after a reconnect) expects lastSeq 0 again.
    expect(await call()).toEqual([3, 1]);
    expect(await store.readEventFrames('a', 0)).toEqual(frames);
    expect(await redis.admin.hget(keys.meta, 'lastBatch')).toBe('batch-1');
  });

  it("writes a session's corrections into the index in the script call that appends their events, and none of a refused session", async () => {
    const store = await storeWith('a', 'b');
    const frame = (id: string) => JSON.stringify(sessionLog(id, 1)[0]);
    const [a1, a2, ghost] = [indexedCorrection('a', 1), indexedCorrection('a', 2), indexedCorrection('ghost', 1)];
    // The script alone, as a node that stops right after it leaves Redis: nothing is written after it.
    const replies = await store.scripts.appendEach([
      { keys: appendKeys('a'), args: ['', 0, 'batch-1', '', '', sessionKeys('a').channel, 2, ...correctionTriple(a1), ...correctionTriple(a2), frame('a')] },
      { keys: appendKeys('ghost'), args: ['', 0, 'batch-1', '', '', sessionKeys('ghost').channel, 1, ...correctionTriple(ghost), frame('ghost')] },
      { keys: appendKeys('b'), args: ['', 0, 'batch-1', '', '', sessionKeys('b').channel, 0, frame('b')] },
    ]);
    expect(replies.map((reply) => reply.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(await store.readEventFrames('a', 0)).toEqual([frame('a')]);
    expect(await store.readEventFrames('b', 0)).toEqual([frame('b')]);
    expect(await redis.admin.hgetall(sessionCorrectionsKey('a'))).toEqual({ 'a-c1': JSON.stringify(a1), 'a-c2': JSON.stringify(a2) });
    expect(await redis.admin.zrange(CORRECTIONS_KEY, '0', '-1')).toEqual([orderKey(a1.record), orderKey(a2.record)]);
    expect(await redis.admin.exists(sessionCorrectionsKey('ghost'), sessionCorrectionsKey('b'))).toBe(0);
    const page = await store.corrections.page({ filter: {}, visibility: { all: true }, limit: 10 });
    expect(page.corrections.map((record) => record.correctedStepId)).toEqual(['a-c2', 'a-c1']);

    // A fenced writer (another node took the session over) writes neither events nor corrections.
    await redis.admin.hset(sessionKeys('b').meta, 'epoch', '2');
    const fenced = store.scripts.append(appendKeys('b'), ['1', 1, 'batch-2', '', '', sessionKeys('b').channel, 1, ...correctionTriple(indexedCorrection('b', 1)), JSON.stringify(sessionLog('b', 2)[1])]);
    await expect(fenced).rejects.toThrow(/FENCED/);
    expect(await redis.admin.exists(sessionCorrectionsKey('b'))).toBe(0);
    expect(await redis.admin.zcard(CORRECTIONS_KEY)).toBe(2);
  });

  it("takes a session's corrections out of the index in the step that deletes its keys", async () => {
    const store = await storeWith('a', 'b');
    const [a1, b1] = [indexedCorrection('a', 1), indexedCorrection('b', 1)];
    await store.appendBatch({ ...batchOf([...sessionLog('a', 2), ...sessionLog('b', 2)]), corrections: [a1, b1] });
    expect(await redis.admin.zcard(CORRECTIONS_KEY)).toBe(2);
    await redis.admin.config('RESETSTAT');

    await store.deleteSession('a');

    const stats = await redis.admin.info('commandstats');
    // One script call removes the keys and the index entries together (commands a script runs count too: no MULTI of its own).
    const calls = (pattern: RegExp) => Number(pattern.exec(stats)?.[1] ?? 0);
    expect(calls(/cmdstat_eval:calls=(\d+)/) + calls(/cmdstat_evalsha:calls=(\d+)/)).toBe(1);
    expect(stats).not.toMatch(/cmdstat_(multi|exec):/);
    expect(await redis.admin.exists(sessionCorrectionsKey('a'), sessionKeys('a').log)).toBe(0);
    expect(await redis.admin.zrange(CORRECTIONS_KEY, '0', '-1')).toEqual([orderKey(b1.record)]);
    expect(await redis.admin.hgetall(sessionCorrectionsKey('b'))).toEqual({ 'b-c1': JSON.stringify(b1) });
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
