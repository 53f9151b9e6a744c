import type { SessionInfo } from '@interthought/protocol';
import { describe, expect, it } from 'vitest';
import { sessionKeys } from '../../src/cluster/redis-keys.js';
import { EventStoreError } from '../../src/store/store-errors.js';
import { SessionError } from '../../src/core/session-error.js';
import { sessionInfo, sessionLog, sessionRecord } from '../store/store-fixtures.js';
import { batchOf, redisPerFile } from './redis-fixtures.js';

const redis = redisPerFile();

async function pageThrough(store: Awaited<ReturnType<typeof redis.openStore>>, limit: number): Promise<string[][]> {
  const pages: string[][] = [];
  let before: string | undefined;
  do {
    const page = await store.listSessions(before === undefined ? { limit } : { limit, before });
    pages.push(page.sessions.map((info) => info.sessionId));
    before = page.nextCursor;
  } while (before !== undefined);
  return pages;
}

describe('RedisEventStore sessions', () => {
  it('creates a session and reads its record back', async () => {
    const store = await redis.openStore();
    await store.createSession(sessionRecord('a'));
    expect(await store.getSession('a')).toEqual(sessionRecord('a'));
    expect(await store.getSession('missing')).toBeUndefined();
  });

  it('refuses to create a session twice with different contents, but accepts a resend of the same create', async () => {
    const store = await redis.openStore();
    await store.createSession(sessionRecord('a'));
    await store.createSession(sessionRecord('a'));
    const other = { ...sessionRecord('a'), options: { tokenDelayMs: 99 } };
    await expect(store.createSession(other)).rejects.toMatchObject({ name: 'EventStoreError', code: 'SESSION_EXISTS' });
  });

  it('updates a summary and refuses one of an unknown session', async () => {
    const store = await redis.openStore();
    await store.createSession(sessionRecord('a'));
    const updated: SessionInfo = { ...sessionInfo('a'), status: 'failed', revision: 2, error: 'boom' };
    await store.updateSession(updated);
    expect((await store.getSession('a'))?.info).toEqual(updated);
    const refusal = store.updateSession(sessionInfo('ghost'));
    await expect(refusal).rejects.toBeInstanceOf(EventStoreError);
    await expect(refusal).rejects.toMatchObject({ code: 'SESSION_NOT_FOUND' });
  });

  it('lists sessions newest first in pages whose cursors hold across equal timestamps', async () => {
    const store = await redis.openStore();
    const sameMs = '2025-03-01T10:00:00.000Z';
    for (const id of ['m1', 'm3', 'm2', 'm5', 'm4']) await store.createSession(sessionRecord(id, sameMs));
    await store.createSession(sessionRecord('old', '2025-01-01T00:00:00.000Z'));
    await store.createSession(sessionRecord('new', '2025-06-01T00:00:00.000Z'));

    const pages = await pageThrough(store, 2);
    expect(pages).toEqual([['new', 'm5'], ['m4', 'm3'], ['m2', 'm1'], ['old']]);
    expect((await pageThrough(store, 100)).flat()).toEqual(pages.flat());
  });

  it('keeps a cursor valid when the session it points at is deleted', async () => {
    const store = await redis.openStore();
    for (const [index, id] of ['a', 'b', 'c', 'd'].entries()) await store.createSession(sessionRecord(id, `2025-01-0${index + 1}T00:00:00.000Z`));
    const first = await store.listSessions({ limit: 2 });
    expect(first.sessions.map((info) => info.sessionId)).toEqual(['d', 'c']);
    await store.deleteSession('c');
    const second = await store.listSessions({ limit: 2, before: first.nextCursor ?? '' });
    expect(second).toEqual({ sessions: [sessionInfo('b', '2025-01-02T00:00:00.000Z'), sessionInfo('a', '2025-01-01T00:00:00.000Z')] });
  });

  it('answers a bad cursor with BAD_CURSOR and a bad limit with BAD_LIMIT', async () => {
    const store = await redis.openStore();
    await expect(store.listSessions({ limit: 2, before: 'not-a-cursor' })).rejects.toBeInstanceOf(SessionError);
    await expect(store.listSessions({ limit: 2, before: 'not-a-cursor' })).rejects.toMatchObject({ code: 'BAD_CURSOR' });
    await expect(store.listSessions({ limit: -1 })).rejects.toMatchObject({ code: 'BAD_LIMIT' });
  });

  it('lists the sessions of a status oldest first, following updates and the summaries of appends', async () => {
    const store = await redis.openStore();
    await store.createSession(sessionRecord('late', '2025-02-01T00:00:00.000Z'));
    await store.createSession(sessionRecord('early', '2025-01-01T00:00:00.000Z'));
    await store.createSession(sessionRecord('done', '2025-01-15T00:00:00.000Z'));
    const ids = async (status: SessionInfo['status']) => (await store.listSessionsByStatus(status)).map((record) => record.info.sessionId);
    expect(await ids('running')).toEqual(['early', 'done', 'late']);

    await store.updateSession({ ...sessionInfo('done', '2025-01-15T00:00:00.000Z'), status: 'completed' });
    const paused = { ...sessionInfo('late', '2025-02-01T00:00:00.000Z'), status: 'paused' as const };
    await store.appendBatch(batchOf(sessionLog('late', 3), [paused]));

    expect(await ids('running')).toEqual(['early']);
    expect(await ids('completed')).toEqual(['done']);
    expect(await store.listSessionsByStatus('paused')).toEqual([{ info: paused, options: { tokenDelayMs: 5 }, lastSeq: 3 }]);
    expect(await ids('failed')).toEqual([]);
  });

  it('deletes every key of a session and its list entries, and ignores unknown ids', async () => {
    const store = await redis.openStore({ retainEventsPerSession: 4 });
    await store.createSession(sessionRecord('gone'));
    await store.createSession(sessionRecord('kept'));
    await store.appendBatch(batchOf(sessionLog('gone', 12)));
    await redis.admin.set(sessionKeys('gone').lease, 'node-a:1');
    await redis.admin.sadd('it:active', 'gone', 'kept');
    expect(await store.readSnapshot('gone')).toBeDefined();

    await store.deleteSession('gone');
    await store.deleteSession('never-was');

    expect(await redis.admin.keys('it:{gone}*')).toEqual([]);
    expect(await store.getSession('gone')).toBeUndefined();
    expect((await store.listSessions({ limit: 10 })).sessions.map((info) => info.sessionId)).toEqual(['kept']);
    expect((await store.listSessionsByStatus('running')).map((record) => record.info.sessionId)).toEqual(['kept']);
    expect(await redis.admin.smembers('it:active')).toEqual(['kept']);
    expect(await redis.admin.zcard('it:by-status')).toBe(1);
  });

  it('refuses every call once closed', async () => {
    const store = await redis.openStore();
    await store.close();
    await store.close();
    await expect(store.getSession('a')).rejects.toMatchObject({ code: 'STORE_CLOSED' });
    await expect(store.appendBatch(batchOf(sessionLog('a', 1)))).rejects.toMatchObject({ code: 'STORE_CLOSED' });
  });
});
