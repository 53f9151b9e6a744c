import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SessionError } from '../../src/core/session-error.js';
import { EventStoreError, openSqliteEventStore, type SqliteEventStore } from '../../src/store/sqlite-event-store.js';
import { EventScript, batchOf, makeTempDir, sessionInfo, sessionRecord } from './store-fixtures.js';

let temp: ReturnType<typeof makeTempDir>;
let store: SqliteEventStore;

beforeEach(() => {
  temp = makeTempDir();
  store = openSqliteEventStore(temp.file());
});

afterEach(async () => {
  await store.close();
  temp.cleanup();
});

describe('SqliteEventStore sessions', () => {
  it('returns a created session as it was recorded', async () => {
    const record = sessionRecord('s1');
    await store.createSession(record);
    expect(await store.getSession('s1')).toEqual(record);
  });

  it('returns undefined for an unknown session', async () => {
    expect(await store.getSession('nope')).toBeUndefined();
  });

  it('refuses to create a session id twice', async () => {
    await store.createSession(sessionRecord('s1'));
    await expect(store.createSession(sessionRecord('s1'))).rejects.toMatchObject({ code: 'SESSION_EXISTS' });
  });

  it('persists status, revision, error and detail changes, and clears them again', async () => {
    await store.createSession(sessionRecord('s1'));
    await store.updateSession({ ...sessionInfo('s1'), status: 'failed', revision: 3, error: 'model down', detail: 'retrying' });
    expect((await store.getSession('s1'))?.info).toEqual({ ...sessionInfo('s1'), status: 'failed', revision: 3, error: 'model down', detail: 'retrying' });
    await store.updateSession({ ...sessionInfo('s1'), status: 'running', revision: 3 });
    expect((await store.getSession('s1'))?.info).toEqual({ ...sessionInfo('s1'), status: 'running', revision: 3 });
  });

  it('refuses to update a session it does not have, with a typed error', async () => {
    await expect(store.updateSession(sessionInfo('ghost'))).rejects.toThrow(EventStoreError);
    await expect(store.updateSession(sessionInfo('ghost'))).rejects.toMatchObject({ code: 'SESSION_NOT_FOUND' });
  });

  it('lists sessions by status, oldest first, with their options and last seq', async () => {
    await store.createSession(sessionRecord('a', '2025-01-01T00:00:02.000Z'));
    await store.createSession(sessionRecord('b', '2025-01-01T00:00:01.000Z'));
    await store.createSession(sessionRecord('c', '2025-01-01T00:00:03.000Z'));
    await store.updateSession({ ...sessionInfo('c', '2025-01-01T00:00:03.000Z'), status: 'completed' });
    const script = new EventScript('a');
    await store.appendBatch(batchOf([script.status('running')]));

    const running = await store.listSessionsByStatus('running');
    expect(running.map((r) => r.info.sessionId)).toEqual(['b', 'a']);
    expect(running[1]).toEqual({ ...sessionRecord('a', '2025-01-01T00:00:02.000Z'), lastSeq: 1 });
    expect(await store.listSessionsByStatus('interrupted')).toEqual([]);
  });

  it('deletes the session row, its events and its snapshot together', async () => {
    const retaining = openSqliteEventStore(':memory:', { retainEventsPerSession: 4 });
    await retaining.createSession(sessionRecord('gone'));
    await retaining.createSession(sessionRecord('kept'));
    const gone = new EventScript('gone');
    await retaining.appendBatch(batchOf([gone.status('running'), ...gone.step(['a', 'b', 'c', 'd', 'e'])]));
    await retaining.appendBatch(batchOf([new EventScript('kept').status('running')]));
    expect(await retaining.readSnapshot('gone')).toBeDefined();

    await retaining.deleteSession('gone');

    expect(await retaining.getSession('gone')).toBeUndefined();
    expect(await retaining.readEvents('gone', 0)).toEqual([]);
    expect(await retaining.firstKeptSeq('gone')).toBeUndefined();
    expect(await retaining.readSnapshot('gone')).toBeUndefined();
    expect((await retaining.listSessions({ limit: 10 })).sessions.map((s) => s.sessionId)).toEqual(['kept']);
    expect(await retaining.readEvents('kept', 0)).toHaveLength(1);
    await retaining.close();
  });

  it('lets a deleted session id start over from seq 1', async () => {
    await store.createSession(sessionRecord('s1'));
    await store.appendBatch(batchOf([new EventScript('s1').status('running')]));
    await store.deleteSession('s1');
    await store.createSession(sessionRecord('s1'));
    await store.appendBatch(batchOf([new EventScript('s1').status('running')]));
    expect((await store.getSession('s1'))?.lastSeq).toBe(1);
  });

  it('ignores the deletion of an unknown session', async () => {
    await expect(store.deleteSession('never-was')).resolves.toBeUndefined();
  });

  it('refuses calls after close with a typed error, and closes twice without complaint', async () => {
    await store.close();
    await expect(store.getSession('s1')).rejects.toMatchObject({ code: 'STORE_CLOSED' });
    await expect(store.close()).resolves.toBeUndefined();
    store = openSqliteEventStore(temp.file());
  });
});

describe('SqliteEventStore listSessions', () => {
  const times = ['2025-01-01T00:00:01.000Z', '2025-01-01T00:00:02.000Z', '2025-01-01T00:00:03.000Z'];

  beforeEach(async () => {
    // Two sessions share each timestamp, so ordering must fall back on the id.
    for (const [i, at] of times.entries()) {
      await store.createSession(sessionRecord(`s${i}a`, at));
      await store.createSession(sessionRecord(`s${i}b`, at));
    }
  });

  it('lists newest first, ties broken by id', async () => {
    const { sessions, nextCursor } = await store.listSessions({ limit: 10 });
    expect(sessions.map((s) => s.sessionId)).toEqual(['s2b', 's2a', 's1b', 's1a', 's0b', 's0a']);
    expect(nextCursor).toBeUndefined();
  });

  it('pages with the cursor without skipping or repeating a session', async () => {
    const seen: string[] = [];
    let before: string | undefined;
    let pages = 0;
    do {
      const page = await store.listSessions(before === undefined ? { limit: 4 } : { limit: 4, before });
      seen.push(...page.sessions.map((s) => s.sessionId));
      before = page.nextCursor;
      pages += 1;
    } while (before !== undefined);
    expect(pages).toBe(2);
    expect(seen).toEqual(['s2b', 's2a', 's1b', 's1a', 's0b', 's0a']);
  });

  it('has no next cursor when the last page is exactly full', async () => {
    const first = await store.listSessions({ limit: 3 });
    expect(first.nextCursor).toBeDefined();
    const second = await store.listSessions({ limit: 3, before: first.nextCursor });
    expect(second.sessions).toHaveLength(3);
    expect(second.nextCursor).toBeUndefined();
  });

  it('keeps a cursor valid while newer sessions are created and the cursor session is deleted', async () => {
    const first = await store.listSessions({ limit: 2 });
    await store.createSession(sessionRecord('newest', '2025-01-02T00:00:00.000Z'));
    await store.deleteSession('s2a');
    const second = await store.listSessions({ limit: 10, before: first.nextCursor });
    expect(second.sessions.map((s) => s.sessionId)).toEqual(['s1b', 's1a', 's0b', 's0a']);
  });

  it('refuses a cursor it did not hand out with a BAD_CURSOR session error', async () => {
    await expect(store.listSessions({ limit: 2, before: 'not-a-cursor' })).rejects.toThrow(SessionError);
    await expect(store.listSessions({ limit: 2, before: 'not-a-cursor' })).rejects.toMatchObject({ code: 'BAD_CURSOR' });
    const wellFormedButForeign = Buffer.from(JSON.stringify({ createdAt: 1 })).toString('base64url');
    await expect(store.listSessions({ limit: 2, before: wellFormedButForeign })).rejects.toMatchObject({ code: 'BAD_CURSOR' });
  });

  it('refuses a negative or fractional limit', async () => {
    await expect(store.listSessions({ limit: -1 })).rejects.toMatchObject({ code: 'BAD_LIMIT' });
    await expect(store.listSessions({ limit: 1.5 })).rejects.toMatchObject({ code: 'BAD_LIMIT' });
  });
});
