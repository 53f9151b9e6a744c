import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SessionError } from '../../src/core/session-error.js';
import { EventStoreError, openSqliteEventStore, type SqliteEventStore } from '../../src/core/sqlite-event-store.js';
import { EventScript, makeTempDir, sessionInfo, sessionRecord } from './store-fixtures.js';

let temp: ReturnType<typeof makeTempDir>;
let store: SqliteEventStore;

beforeEach(() => {
  temp = makeTempDir();
  store = openSqliteEventStore(temp.file());
});

afterEach(() => {
  store.close();
  temp.cleanup();
});

describe('SqliteEventStore sessions', () => {
  it('returns a created session as it was recorded', () => {
    const record = sessionRecord('s1');
    store.createSession(record);
    expect(store.getSession('s1')).toEqual(record);
  });

  it('returns undefined for an unknown session', () => {
    expect(store.getSession('nope')).toBeUndefined();
  });

  it('refuses to create a session id twice', () => {
    store.createSession(sessionRecord('s1'));
    expect(() => store.createSession(sessionRecord('s1'))).toThrow(expect.objectContaining({ code: 'SESSION_EXISTS' }));
  });

  it('persists status, revision, error and detail changes, and clears them again', () => {
    store.createSession(sessionRecord('s1'));
    store.updateSession({ ...sessionInfo('s1'), status: 'failed', revision: 3, error: 'model down', detail: 'retrying' });
    expect(store.getSession('s1')?.info).toEqual({ ...sessionInfo('s1'), status: 'failed', revision: 3, error: 'model down', detail: 'retrying' });
    store.updateSession({ ...sessionInfo('s1'), status: 'running', revision: 3 });
    expect(store.getSession('s1')?.info).toEqual({ ...sessionInfo('s1'), status: 'running', revision: 3 });
  });

  it('refuses to update a session it does not have, with a typed error', () => {
    expect(() => store.updateSession(sessionInfo('ghost'))).toThrow(EventStoreError);
    expect(() => store.updateSession(sessionInfo('ghost'))).toThrow(expect.objectContaining({ code: 'SESSION_NOT_FOUND' }));
  });

  it('lists sessions by status, oldest first, with their options and last seq', () => {
    store.createSession(sessionRecord('a', '2025-01-01T00:00:02.000Z'));
    store.createSession(sessionRecord('b', '2025-01-01T00:00:01.000Z'));
    store.createSession(sessionRecord('c', '2025-01-01T00:00:03.000Z'));
    store.updateSession({ ...sessionInfo('c', '2025-01-01T00:00:03.000Z'), status: 'completed' });
    const script = new EventScript('a');
    store.appendBatch([script.status('running')]);

    const running = store.listSessionsByStatus('running');
    expect(running.map((r) => r.info.sessionId)).toEqual(['b', 'a']);
    expect(running[1]).toEqual({ ...sessionRecord('a', '2025-01-01T00:00:02.000Z'), lastSeq: 1 });
    expect(store.listSessionsByStatus('interrupted')).toEqual([]);
  });

  it('deletes the session row, its events and its snapshot together', () => {
    const retaining = openSqliteEventStore(':memory:', { retainEventsPerSession: 4 });
    retaining.createSession(sessionRecord('gone'));
    retaining.createSession(sessionRecord('kept'));
    const gone = new EventScript('gone');
    retaining.appendBatch([gone.status('running'), ...gone.step(['a', 'b', 'c', 'd', 'e'])]);
    retaining.appendBatch([new EventScript('kept').status('running')]);
    expect(retaining.readSnapshot('gone')).toBeDefined();

    retaining.deleteSession('gone');

    expect(retaining.getSession('gone')).toBeUndefined();
    expect(retaining.readEvents('gone', 0)).toEqual([]);
    expect(retaining.firstKeptSeq('gone')).toBeUndefined();
    expect(retaining.readSnapshot('gone')).toBeUndefined();
    expect(retaining.listSessions({ limit: 10 }).sessions.map((s) => s.sessionId)).toEqual(['kept']);
    expect(retaining.readEvents('kept', 0)).toHaveLength(1);
    retaining.close();
  });

  it('lets a deleted session id start over from seq 1', () => {
    store.createSession(sessionRecord('s1'));
    store.appendBatch([new EventScript('s1').status('running')]);
    store.deleteSession('s1');
    store.createSession(sessionRecord('s1'));
    store.appendBatch([new EventScript('s1').status('running')]);
    expect(store.getSession('s1')?.lastSeq).toBe(1);
  });

  it('ignores the deletion of an unknown session', () => {
    expect(() => store.deleteSession('never-was')).not.toThrow();
  });

  it('refuses calls after close with a typed error, and closes twice without complaint', () => {
    store.close();
    expect(() => store.getSession('s1')).toThrow(expect.objectContaining({ code: 'STORE_CLOSED' }));
    expect(() => store.close()).not.toThrow();
    store = openSqliteEventStore(temp.file());
  });
});

describe('SqliteEventStore listSessions', () => {
  const times = ['2025-01-01T00:00:01.000Z', '2025-01-01T00:00:02.000Z', '2025-01-01T00:00:03.000Z'];

  beforeEach(() => {
    // Two sessions share each timestamp, so ordering must fall back on the id.
    for (const [i, at] of times.entries()) {
      store.createSession(sessionRecord(`s${i}a`, at));
      store.createSession(sessionRecord(`s${i}b`, at));
    }
  });

  it('lists newest first, ties broken by id', () => {
    const { sessions, nextCursor } = store.listSessions({ limit: 10 });
    expect(sessions.map((s) => s.sessionId)).toEqual(['s2b', 's2a', 's1b', 's1a', 's0b', 's0a']);
    expect(nextCursor).toBeUndefined();
  });

  it('pages with the cursor without skipping or repeating a session', () => {
    const seen: string[] = [];
    let before: string | undefined;
    let pages = 0;
    do {
      const page = store.listSessions(before === undefined ? { limit: 4 } : { limit: 4, before });
      seen.push(...page.sessions.map((s) => s.sessionId));
      before = page.nextCursor;
      pages += 1;
    } while (before !== undefined);
    expect(pages).toBe(2);
    expect(seen).toEqual(['s2b', 's2a', 's1b', 's1a', 's0b', 's0a']);
  });

  it('has no next cursor when the last page is exactly full', () => {
    const first = store.listSessions({ limit: 3 });
    expect(first.nextCursor).toBeDefined();
    const second = store.listSessions({ limit: 3, before: first.nextCursor });
    expect(second.sessions).toHaveLength(3);
    expect(second.nextCursor).toBeUndefined();
  });

  it('keeps a cursor valid while newer sessions are created and the cursor session is deleted', () => {
    const first = store.listSessions({ limit: 2 });
    store.createSession(sessionRecord('newest', '2025-01-02T00:00:00.000Z'));
    store.deleteSession('s2a');
    const second = store.listSessions({ limit: 10, before: first.nextCursor });
    expect(second.sessions.map((s) => s.sessionId)).toEqual(['s1b', 's1a', 's0b', 's0a']);
  });

  it('refuses a cursor it did not hand out with a BAD_CURSOR session error', () => {
    expect(() => store.listSessions({ limit: 2, before: 'not-a-cursor' })).toThrow(SessionError);
    expect(() => store.listSessions({ limit: 2, before: 'not-a-cursor' })).toThrow(expect.objectContaining({ code: 'BAD_CURSOR' }));
    const wellFormedButForeign = Buffer.from(JSON.stringify({ createdAt: 1 })).toString('base64url');
    expect(() => store.listSessions({ limit: 2, before: wellFormedButForeign })).toThrow(expect.objectContaining({ code: 'BAD_CURSOR' }));
  });

  it('refuses a negative or fractional limit', () => {
    expect(() => store.listSessions({ limit: -1 })).toThrow(expect.objectContaining({ code: 'BAD_LIMIT' }));
    expect(() => store.listSessions({ limit: 1.5 })).toThrow(expect.objectContaining({ code: 'BAD_LIMIT' }));
  });
});
