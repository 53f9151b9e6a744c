import { join } from 'node:path';
import type { SessionEvent } from '@interthought/protocol';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { connectRedis } from '../../src/cluster/redis-connection.js';
import { RedisEventStore } from '../../src/cluster/redis-event-store.js';
import { sessionKeys, BY_STATUS_KEY } from '../../src/cluster/redis-keys.js';
import { sessionInfo, sessionLog, sessionRecord } from '../store/store-fixtures.js';
import { batchOf, redisPerFile } from './redis-fixtures.js';
import { startReplyCuttingProxy } from './reply-cutting-proxy.js';

const redis = redisPerFile();

async function storeWith(...sessionIds: string[]) {
  const store = await redis.openStore({ retainEventsPerSession: 'all' });
  for (const id of sessionIds) await store.createSession(sessionRecord(id));
  return store;
}

describe('RedisEventStore appends', () => {
  it('appends events and reads them back after any seq, with a limit', async () => {
    const store = await storeWith('a');
    const log = sessionLog('a', 9);
    await store.appendBatch(batchOf(log.slice(0, 4)));
    await store.appendBatch(batchOf(log.slice(4)));

    expect(await store.readEvents('a', 0)).toEqual(log);
    expect(await store.readEvents('a', 6)).toEqual(log.slice(6));
    expect(await store.readEvents('a', 2, 3)).toEqual(log.slice(2, 5));
    expect(await store.readEvents('a', 9)).toEqual([]);
    expect(await store.readEvents('a', 0, 0)).toEqual([]);
    expect((await store.getSession('a'))?.lastSeq).toBe(9);
    expect(await store.readEvents('unknown', 0)).toEqual([]);
    await expect(store.readEvents('a', 0, -1)).rejects.toMatchObject({ code: 'BAD_LIMIT' });
  });

  it('stores each frame as given and reads it back byte-identical', async () => {
    const store = await storeWith('a');
    const events = sessionLog('a', 3);
    // Unusual but valid JSON: key order, escapes, astral characters and U+2028 survive untouched.
    const frames = [
      '{"seq":1,"type":"session.status","sessionId":"a","at":"x","status":"running"}',
      JSON.stringify(events[1]).replace('}', ',"note":"\\u00e9 \\n 😀 \u2028"}'),
      JSON.stringify(events[2]),
    ];
    await store.appendBatch({ events, frames });
    expect(await store.readEventFrames('a', 0)).toEqual(frames);
    expect(await store.readEventFrames('a', 1, 1)).toEqual([frames[1]]);
  });

  it('says which seq is the first kept one: none before the first event', async () => {
    const store = await storeWith('a');
    expect(await store.firstKeptSeq('a')).toBeUndefined();
    expect(await store.firstKeptSeq('unknown')).toBeUndefined();
    await store.appendBatch(batchOf(sessionLog('a', 2)));
    expect(await store.firstKeptSeq('a')).toBe(1);
    expect(await store.readSnapshot('a')).toBeUndefined();
  });

  it('refuses a batch whose seqs do not continue the stored log, and writes nothing', async () => {
    const store = await storeWith('a');
    const log = sessionLog('a', 6);
    await store.appendBatch(batchOf(log.slice(0, 2)));
    await expect(store.appendBatch(batchOf(log.slice(3, 5)))).rejects.toMatchObject({ name: 'EventStoreError', code: 'SEQ_NOT_CONTIGUOUS' });
    const skipping = [log[2], log[4]] as SessionEvent[];
    await expect(store.appendBatch(batchOf(skipping))).rejects.toMatchObject({ code: 'SEQ_NOT_CONTIGUOUS' });
    expect(await store.readEvents('a', 0)).toEqual(log.slice(0, 2));
    expect((await store.getSession('a'))?.lastSeq).toBe(2);
  });

  it('refuses a batch that repeats stored seqs with other contents', async () => {
    const store = await storeWith('a');
    const log = sessionLog('a', 4);
    await store.appendBatch(batchOf(log.slice(0, 3)));
    const rewritten = { ...log[2], at: '2030-01-01T00:00:00.000Z' } as SessionEvent;
    await expect(store.appendBatch(batchOf([rewritten, log[3] as SessionEvent]))).rejects.toMatchObject({ code: 'SEQ_NOT_CONTIGUOUS' });
    expect(await store.readEvents('a', 0)).toEqual(log.slice(0, 3));
  });

  it('refuses events of an unknown session and frames with a raw line feed', async () => {
    const store = await storeWith('a');
    await expect(store.appendBatch(batchOf(sessionLog('ghost', 1)))).rejects.toMatchObject({ code: 'SESSION_NOT_FOUND' });
    const [event] = sessionLog('a', 1) as [SessionEvent];
    await expect(store.appendBatch({ events: [event], frames: ['{\n"seq":1}'] })).rejects.toMatchObject({ code: 'BAD_EVENT' });
    expect(await redis.admin.exists(sessionKeys('a').log, sessionKeys('ghost').meta)).toBe(0);
  });

  it('writes the events and summaries of several sessions in one call', async () => {
    const store = await storeWith('a', 'b');
    const a = sessionLog('a', 5);
    const b = sessionLog('b', 3);
    const interleaved = [a[0], b[0], a[1], a[2], b[1], b[2], a[3], a[4]] as SessionEvent[];
    const completed = { ...sessionInfo('b'), status: 'completed' as const };
    await store.appendBatch(batchOf(interleaved, [completed]));

    expect(await store.readEvents('a', 0)).toEqual(a);
    expect(await store.readEvents('b', 0)).toEqual(b);
    expect(await store.getSession('b')).toEqual({ info: completed, options: { tokenDelayMs: 5 }, lastSeq: 3 });
    expect((await store.getSession('a'))?.info.status).toBe('running');
  });

  it('writes a summary that comes without events of its session', async () => {
    const store = await storeWith('a', 'b');
    const paused = { ...sessionInfo('b'), status: 'paused' as const };
    await store.appendBatch(batchOf(sessionLog('a', 1), [paused]));
    expect((await store.getSession('b'))?.info).toEqual(paused);
    expect((await store.getSession('b'))?.lastSeq).toBe(0);
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
