import type { SessionInfo, SessionStatus } from '@interthought/protocol';
import { beforeEach, describe, expect, it } from 'vitest';
import type { EventStore, SessionRecord } from '../../../src/core/persistence/event-store.js';
import { SessionError } from '../../../src/core/session-error.js';
import { batchOf, sessionInfo, sessionLog, sessionRecord } from '../store-fixtures.js';
import { newestFirst, type StoreHarness } from './store-harness.js';

/** Every page of the sessions list, `limit` at a time, as ids. */
async function pageThrough(store: EventStore, limit: number): Promise<string[][]> {
  const pages: string[][] = [];
  let before: string | undefined;
  do {
    const page = await store.listSessions(before === undefined ? { limit } : { limit, before });
    pages.push(page.sessions.map((info) => info.sessionId));
    before = page.nextCursor;
  } while (before !== undefined);
  return pages;
}

function chunks<T>(items: readonly T[], size: number): T[][] {
  return Array.from({ length: Math.ceil(items.length / size) }, (_, index) => items.slice(index * size, index * size + size));
}

/** Records created one after the other (in this order), returned as created. */
async function createAll(store: EventStore, records: readonly SessionRecord[]): Promise<SessionInfo[]> {
  for (const record of records) await store.createSession(record);
  return records.map((record) => record.info);
}

const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/**
 * Other spellings of `cursor` that a lenient decoder reads as the same position: for base64url the
 * padding bits of the last character, padding, whitespace and ignored characters; for a number
 * leading zeros, signs, fractions and blanks. One position has one cursor, so each is refused.
 */
function respellings(cursor: string): string[] {
  // Only of a base64url cursor (a decimal one's "twins" are other, valid cursors).
  const isBase64url = !/^\d+$/.test(cursor) && Buffer.from(cursor, 'base64url').toString('base64url') === cursor;
  const last = BASE64URL.indexOf(cursor.at(-1) ?? '');
  const paddingTwins = !isBase64url || cursor.length % 4 === 0 ? [] : [1, 2, 3].map((bit) => `${cursor.slice(0, -1)}${BASE64URL[last ^ bit]}`);
  const middle = Math.floor(cursor.length / 2);
  return [
    ...paddingTwins,
    `${cursor}=`,
    `${cursor.slice(0, middle)}\n${cursor.slice(middle)}`,
    `${cursor.slice(0, middle)}!${cursor.slice(middle)}`,
    ` ${cursor}`,
    `${cursor} `,
    `0${cursor}`,
    `+${cursor}`,
    `${cursor}.0`,
  ].filter((respelled) => respelled !== cursor);
}

/** `listSessions` (newest first, paged by cursor) and `listSessionsByStatus` (oldest first). */
export function describeSessionListing<S extends EventStore>(name: string, harness: StoreHarness<S>): void {
  const order = harness.differences.sessionOrder;

  describe(`${name}: listSessions of six sessions`, () => {
    const times = ['2025-01-01T00:00:01.000Z', '2025-01-01T00:00:02.000Z', '2025-01-01T00:00:03.000Z'];
    let store: S;

    beforeEach(async () => {
      store = await harness.open();
      // Two sessions share each timestamp, so ordering must fall back on the id.
      for (const [i, at] of times.entries()) {
        await store.createSession(sessionRecord(`s${i}a`, at));
        await store.createSession(sessionRecord(`s${i}b`, at));
      }
    });

    it('lists newest first, ties broken by id', async () => {
      const { sessions, nextCursor } = await store.listSessions({ limit: 10 });
      expect(sessions.map((s) => s.sessionId)).toEqual(['s2b', 's2a', 's1b', 's1a', 's0b', 's0a']);
      expect(sessions[0]).toEqual(sessionInfo('s2b', times[2]));
      expect(nextCursor).toBeUndefined();
    });

    it('pages with the cursor without skipping or repeating a session', async () => {
      expect(await pageThrough(store, 4)).toEqual([
        ['s2b', 's2a', 's1b', 's1a'],
        ['s0b', 's0a'],
      ]);
      expect(await pageThrough(store, 1)).toHaveLength(6);
    });

    it('has no next cursor when the last page is exactly full', async () => {
      const first = await store.listSessions({ limit: 3 });
      expect(first.nextCursor).toBeDefined();
      const second = await store.listSessions({ limit: 3, before: first.nextCursor! });
      expect(second.sessions).toHaveLength(3);
      expect(second.nextCursor).toBeUndefined();
    });

    it('keeps a cursor valid while newer sessions are created and the cursor session is deleted', async () => {
      const first = await store.listSessions({ limit: 2 });
      await store.createSession(sessionRecord('newest', '2025-01-02T00:00:00.000Z'));
      await store.deleteSession('s2a');
      const second = await store.listSessions({ limit: 10, before: first.nextCursor! });
      expect(second.sessions.map((s) => s.sessionId)).toEqual(['s1b', 's1a', 's0b', 's0a']);
    });

    it('refuses a cursor it did not hand out with a BAD_CURSOR session error', async () => {
      const wellFormedButForeign = Buffer.from(JSON.stringify({ createdAt: 1 })).toString('base64url');
      for (const before of ['not-a-cursor', 'yesterday', wellFormedButForeign]) {
        const refusal = store.listSessions({ limit: 2, before });
        await expect(refusal).rejects.toThrow(SessionError);
        await expect(refusal).rejects.toMatchObject({ code: 'BAD_CURSOR' });
      }
    });

    it('refuses a cursor it handed out but spelled otherwise, though a lenient decoder reads the same position', async () => {
      const { nextCursor } = await store.listSessions({ limit: 2 });
      for (const before of respellings(nextCursor!)) {
        const refusal = store.listSessions({ limit: 2, before });
        await expect(refusal, JSON.stringify(before)).rejects.toMatchObject({ name: 'SessionError', code: 'BAD_CURSOR' });
      }
      expect((await store.listSessions({ limit: 2, before: nextCursor! })).sessions).toHaveLength(2);
    });

    if (harness.differences.badLimits === 'refused') {
      it('refuses a negative or fractional limit, of sessions and of events', async () => {
        for (const limit of [-1, 1.5]) {
          await expect(store.listSessions({ limit })).rejects.toMatchObject({ name: 'EventStoreError', code: 'BAD_LIMIT' });
          await expect(store.readEvents('s0a', 0, limit)).rejects.toMatchObject({ name: 'EventStoreError', code: 'BAD_LIMIT' });
          await expect(store.readEventFrames('s0a', 0, limit)).rejects.toMatchObject({ name: 'EventStoreError', code: 'BAD_LIMIT' });
        }
      });
    }
  });

  describe(`${name}: listSessions paging`, () => {
    it(`lists newest first (by ${order}), one page at a time`, async () => {
      const store = await harness.open();
      const created = await createAll(store, ['a', 'b', 'c', 'd', 'e'].map((id) => sessionRecord(id)));
      const expected = newestFirst(created, order);
      const first = await store.listSessions({ limit: 2 });
      expect(first.sessions.map((session) => session.sessionId)).toEqual(expected.slice(0, 2));
      const second = await store.listSessions({ limit: 2, before: first.nextCursor! });
      expect(second.sessions.map((session) => session.sessionId)).toEqual(expected.slice(2, 4));
      const last = await store.listSessions({ limit: 2, before: second.nextCursor! });
      expect(last.sessions.map((session) => session.sessionId)).toEqual(expected.slice(4));
      expect(last.nextCursor).toBeUndefined();
    });

    it(`pages by ${order} with cursors that hold across equal timestamps`, async () => {
      const store = await harness.open();
      const sameMs = '2025-03-01T10:00:00.000Z';
      const created = await createAll(store, [
        ...['m1', 'm3', 'm2', 'm5', 'm4'].map((id) => sessionRecord(id, sameMs)),
        sessionRecord('old', '2025-01-01T00:00:00.000Z'),
        sessionRecord('new', '2025-06-01T00:00:00.000Z'),
      ]);
      const pages = await pageThrough(store, 2);
      expect(pages).toEqual(chunks(newestFirst(created, order), 2));
      expect((await pageThrough(store, 100)).flat()).toEqual(pages.flat());
    });

    it('keeps a cursor valid when the session it points at is deleted', async () => {
      const store = await harness.open();
      await createAll(store, ['a', 'b', 'c', 'd'].map((id, index) => sessionRecord(id, `2025-01-0${index + 1}T00:00:00.000Z`)));
      const first = await store.listSessions({ limit: 2 });
      expect(first.sessions.map((info) => info.sessionId)).toEqual(['d', 'c']);
      await store.deleteSession('c');
      const second = await store.listSessions({ limit: 2, before: first.nextCursor ?? '' });
      expect(second).toEqual({ sessions: [sessionInfo('b', '2025-01-02T00:00:00.000Z'), sessionInfo('a', '2025-01-01T00:00:00.000Z')] });
    });
  });

  describe(`${name}: listSessionsByStatus`, () => {
    const oldestFirst = (created: readonly SessionInfo[], status: SessionStatus) =>
      newestFirst(
        created.filter((info) => info.status === status),
        order,
      ).reverse();

    it(`lists the sessions of a status oldest first (by ${order}), with their options and last seq`, async () => {
      const store = await harness.open();
      const created = await createAll(store, [
        sessionRecord('a', '2025-01-01T00:00:02.000Z'),
        sessionRecord('b', '2025-01-01T00:00:01.000Z'),
        sessionRecord('c', '2025-01-01T00:00:03.000Z'),
      ]);
      await store.updateSession({ ...sessionInfo('c', '2025-01-01T00:00:03.000Z'), status: 'completed' });
      await store.appendBatch(batchOf(sessionLog('a', 1)));

      const running = await store.listSessionsByStatus('running');
      expect(running.map((record) => record.info.sessionId)).toEqual(oldestFirst(created.slice(0, 2), 'running'));
      expect(running.find((record) => record.info.sessionId === 'a')).toEqual({ ...sessionRecord('a', '2025-01-01T00:00:02.000Z'), lastSeq: 1 });
      expect(await store.listSessionsByStatus('interrupted')).toEqual([]);
    });

    it('follows updates and the summaries of appends', async () => {
      const store = await harness.open();
      const created = await createAll(store, [
        sessionRecord('late', '2025-02-01T00:00:00.000Z'),
        sessionRecord('early', '2025-01-01T00:00:00.000Z'),
        sessionRecord('done', '2025-01-15T00:00:00.000Z'),
      ]);
      const ids = async (status: SessionStatus) => (await store.listSessionsByStatus(status)).map((record) => record.info.sessionId);
      expect(await ids('running')).toEqual(oldestFirst(created, 'running'));

      const completed = { ...sessionInfo('done', '2025-01-15T00:00:00.000Z'), status: 'completed' as const, revision: 2 };
      await store.updateSession(completed);
      const paused = { ...sessionInfo('late', '2025-02-01T00:00:00.000Z'), status: 'paused' as const };
      await store.appendBatch(batchOf(sessionLog('late', 3), [paused]));

      expect(await ids('running')).toEqual(['early']);
      expect(await store.listSessionsByStatus('completed')).toEqual([{ info: completed, options: { tokenDelayMs: 5 }, lastSeq: 0 }]);
      expect(await store.listSessionsByStatus('paused')).toEqual([{ info: paused, options: { tokenDelayMs: 5 }, lastSeq: 3 }]);
      expect(await ids('failed')).toEqual([]);
    });
  });
}
