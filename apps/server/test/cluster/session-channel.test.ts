import type { SessionEvent } from '@interthought/protocol';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { encodeBatchMessage, decodeBatchMessage } from '../../src/cluster/batch-message.js';
import { SessionChannel, type SessionChannelHandlers } from '../../src/cluster/session-channel.js';
import { sessionLog, sessionRecord } from '../store/store-fixtures.js';
import { batchOf, redisPerFile } from './redis-fixtures.js';

const redis = redisPerFile();

interface Received {
  sessionId: string;
  firstSeq: number;
  frames: string[];
}

/** A channel recording what it hands over, and promises for what a test waits on. */
async function openChannel(extra: Partial<SessionChannelHandlers> = {}) {
  const batches: Received[] = [];
  const errors: Error[] = [];
  const channel = await SessionChannel.open(redis.server.socket, {
    onBatch: (sessionId, frames, firstSeq) => batches.push({ sessionId, firstSeq, frames }),
    onError: (error) => errors.push(error),
    ...extra,
  });
  onTestFinished(() => channel.close());
  return { channel, batches, errors };
}

/** The channel connection's id, found by its name in CLIENT LIST. */
async function channelClientId(): Promise<string> {
  const list = (await redis.admin.client('LIST')) as string;
  const line = list.split('\n').find((entry) => entry.includes('name=interthought-channel'));
  const id = /\bid=(\d+)/.exec(line ?? '')?.[1];
  if (id === undefined) throw new Error(`no channel connection in:\n${list}`);
  return id;
}

describe('SessionChannel', () => {
  it('delivers every appended batch of a watched session, in order, as the frames stored', async () => {
    const store = await redis.openStore({ retainEventsPerSession: 'all' });
    await store.createSession(sessionRecord('a'));
    await store.createSession(sessionRecord('b'));
    const { channel, batches, errors } = await openChannel();
    await channel.subscribe('a');

    const a = sessionLog('a', 40);
    const b = sessionLog('b', 4);
    await store.appendBatch(batchOf([...a.slice(0, 3), ...b.slice(0, 2)]));
    for (let i = 3; i < 40; i += 5) await store.appendBatch(batchOf(a.slice(i, i + 5)));
    await store.appendBatch(batchOf(b.slice(2)));
    await vi.waitFor(() => expect(batches.reduce((sum, batch) => sum + batch.frames.length, 0)).toBe(40), { timeout: 5_000 });

    expect(batches.every((batch) => batch.sessionId === 'a')).toBe(true);
    expect(batches.map((batch) => batch.firstSeq)).toEqual([1, 4, 9, 14, 19, 24, 29, 34, 39]);
    expect(batches.flatMap((batch) => batch.frames)).toEqual(await store.readEventFrames('a', 0));
    expect(errors).toEqual([]);
  });

  it('publishes only the part of a retried batch that was not written yet', async () => {
    const store = await redis.openStore({ retainEventsPerSession: 'all' });
    await store.createSession(sessionRecord('a'));
    const { channel, batches } = await openChannel();
    await channel.subscribe('a');
    const log = sessionLog('a', 5);
    await store.appendBatch(batchOf(log.slice(0, 3)));
    await store.appendBatch(batchOf(log));
    await vi.waitFor(() => expect(batches).toHaveLength(2), { timeout: 5_000 });
    expect(batches.map((batch) => [batch.firstSeq, batch.frames.length])).toEqual([
      [1, 3],
      [4, 2],
    ]);
  });

  it('stops delivering a session once unsubscribed', async () => {
    const store = await redis.openStore({ retainEventsPerSession: 'all' });
    await store.createSession(sessionRecord('a'));
    const { channel, batches } = await openChannel();
    await channel.subscribe('a');
    const log = sessionLog('a', 2);
    await store.appendBatch(batchOf(log.slice(0, 1)));
    await vi.waitFor(() => expect(batches).toHaveLength(1), { timeout: 5_000 });
    await channel.unsubscribe('a');
    await store.appendBatch(batchOf(log.slice(1)));
    // A marker on a still-watched session proves later messages would have arrived by now.
    await store.createSession(sessionRecord('marker'));
    await channel.subscribe('marker');
    await store.appendBatch(batchOf(sessionLog('marker', 1)));
    await vi.waitFor(() => expect(batches).toHaveLength(2), { timeout: 5_000 });
    expect(batches.map((batch) => batch.sessionId)).toEqual(['a', 'marker']);
  });

  it('reports a lost connection, resubscribes every session, and delivers again', async () => {
    const store = await redis.openStore({ retainEventsPerSession: 'all' });
    for (const id of ['a', 'b']) await store.createSession(sessionRecord(id));
    const events: string[] = [];
    const { channel, batches } = await openChannel({
      onConnectionLost: () => events.push('lost'),
      onResubscribed: (ids) => events.push(`resubscribed ${[...ids].sort().join(',')}`),
    });
    await channel.subscribe('a');
    await channel.subscribe('b');

    await redis.admin.client('KILL', 'ID', await channelClientId());
    await vi.waitFor(() => expect(events).toHaveLength(2), { timeout: 5_000 });
    expect(events).toEqual(['lost', 'resubscribed a,b']);

    await store.appendBatch(batchOf([...sessionLog('a', 1), ...sessionLog('b', 1)] as SessionEvent[]));
    await vi.waitFor(() => expect(batches).toHaveLength(2), { timeout: 5_000 });
    expect(batches.map((batch) => batch.sessionId).sort()).toEqual(['a', 'b']);
  });

  it('encodes a batch as a header line and one frame a line', () => {
    const frames = ['{"seq":7}', '{"text":"a\\nb"}'];
    expect(encodeBatchMessage(7, frames)).toBe('7\n{"seq":7}\n{"text":"a\\nb"}');
    expect(decodeBatchMessage(encodeBatchMessage(7, frames))).toEqual({ firstSeq: 7, frames });
    expect(decodeBatchMessage('hello')).toBeUndefined();
    expect(decodeBatchMessage('x\n{}')).toBeUndefined();
  });
});
