import { toSnapshot, type SessionEvent, type SessionInfo } from '@interthought/protocol';
import { describe, expect, it } from 'vitest';
import { MemoryEventStore } from '../../src/core/memory-event-store.js';
import { SessionError } from '../../src/core/session-error.js';
import { fold } from './support/harness.js';

function info(sessionId: string, status: SessionInfo['status'] = 'running'): SessionInfo {
  return { sessionId, task: `task of ${sessionId}`, agent: 'script', status, revision: 0, createdAt: '2025-01-01T00:00:00.000Z' };
}

function status(sessionId: string, seq: number, value: SessionInfo['status'] = 'running'): SessionEvent {
  return { type: 'session.status', sessionId, seq, at: `2025-01-01T00:00:${String(seq % 60).padStart(2, '0')}.000Z`, status: value };
}

/** A log of `count` events: running, a step, its deltas, then completion. */
function log(sessionId: string, count: number): SessionEvent[] {
  const events: SessionEvent[] = [status(sessionId, 1)];
  const step = { stepId: 's1', parentId: null, index: 0, kind: 'thought' as const, status: 'streaming' as const, content: '', revision: 0 };
  events.push({ type: 'step.started', sessionId, seq: 2, at: '2025-01-01T00:00:02.000Z', step });
  for (let seq = 3; seq <= count; seq++) events.push({ type: 'step.delta', sessionId, seq, at: '2025-01-01T00:00:03.000Z', stepId: 's1', text: `t${seq} ` });
  return events;
}

function storeWith(sessionId: string, options: ConstructorParameters<typeof MemoryEventStore>[0] = {}): MemoryEventStore {
  const store = new MemoryEventStore(options);
  store.createSession({ info: info(sessionId), options: { tokenDelayMs: 5 }, lastSeq: 0 });
  return store;
}

describe('MemoryEventStore: sessions', () => {
  it('keeps a record with its options and the last seq written', () => {
    const store = storeWith('a');
    store.appendBatch(log('a', 4));
    expect(store.getSession('a')).toEqual({ info: info('a'), options: { tokenDelayMs: 5 }, lastSeq: 4 });
  });

  it('hands out copies, so callers cannot change what is stored', () => {
    const store = storeWith('a');
    const record = store.getSession('a')!;
    record.info.status = 'failed';
    record.lastSeq = 99;
    expect(store.getSession('a')?.info.status).toBe('running');
    expect(store.getSession('a')?.lastSeq).toBe(0);
  });

  it('refuses to create the same session twice', () => {
    const store = storeWith('a');
    expect(() => store.createSession({ info: info('a'), options: {}, lastSeq: 0 })).toThrow(/already exists/);
  });

  it('updates the summary and finds sessions by status', () => {
    const store = storeWith('a');
    store.createSession({ info: info('b'), options: {}, lastSeq: 0 });
    store.updateSession({ ...info('b'), status: 'completed', revision: 2 });
    expect(store.listSessionsByStatus('running').map((record) => record.info.sessionId)).toEqual(['a']);
    expect(store.listSessionsByStatus('completed')).toEqual([{ info: { ...info('b'), status: 'completed', revision: 2 }, options: {}, lastSeq: 0 }]);
  });

  it('lists sessions newest first, one page at a time', () => {
    const store = new MemoryEventStore();
    for (const id of ['a', 'b', 'c', 'd', 'e']) store.createSession({ info: info(id), options: {}, lastSeq: 0 });
    const first = store.listSessions({ limit: 2 });
    expect(first.sessions.map((session) => session.sessionId)).toEqual(['e', 'd']);
    const second = store.listSessions({ limit: 2, before: first.nextCursor! });
    expect(second.sessions.map((session) => session.sessionId)).toEqual(['c', 'b']);
    const last = store.listSessions({ limit: 2, before: second.nextCursor! });
    expect(last.sessions.map((session) => session.sessionId)).toEqual(['a']);
    expect(last.nextCursor).toBeUndefined();
  });

  it('refuses a list cursor it did not issue with BAD_CURSOR', () => {
    const store = storeWith('a');
    const refusal = (() => {
      try {
        store.listSessions({ limit: 10, before: 'yesterday' });
      } catch (error) {
        return error;
      }
    })();
    expect(refusal).toBeInstanceOf(SessionError);
    expect((refusal as SessionError).code).toBe('BAD_CURSOR');
  });

  it('deletes a session with its events', () => {
    const store = storeWith('a');
    store.appendBatch(log('a', 3));
    store.deleteSession('a');
    expect(store.getSession('a')).toBeUndefined();
    expect(store.readEvents('a', 0)).toEqual([]);
  });
});

describe('MemoryEventStore: event log', () => {
  it('reads the events after a seq, in order, up to a limit', () => {
    const store = storeWith('a');
    const events = log('a', 6);
    store.appendBatch(events);
    expect(store.readEvents('a', 0)).toEqual(events);
    expect(store.readEvents('a', 3)).toEqual(events.slice(3));
    expect(store.readEvents('a', 2, 2)).toEqual(events.slice(2, 4));
    expect(store.readEvents('a', 6)).toEqual([]);
    expect(store.firstKeptSeq('a')).toBe(1);
  });

  it('has no first kept seq for an empty log', () => {
    expect(storeWith('a').firstKeptSeq('a')).toBeUndefined();
  });

  it('writes events of several sessions in one batch', () => {
    const store = storeWith('a');
    store.createSession({ info: info('b'), options: {}, lastSeq: 0 });
    store.appendBatch([status('a', 1), status('b', 1), status('a', 2, 'paused')]);
    expect(store.getSession('a')?.lastSeq).toBe(2);
    expect(store.getSession('b')?.lastSeq).toBe(1);
  });

  it('refuses a batch with a seq gap and writes none of it', () => {
    const store = storeWith('a');
    store.appendBatch([status('a', 1)]);
    expect(() => store.appendBatch([status('a', 2), status('a', 4)])).toThrow(/expected seq 3/);
    expect(store.getSession('a')?.lastSeq).toBe(1);
    expect(store.readEvents('a', 0)).toHaveLength(1);
  });

  it('refuses a replayed seq and events of unknown sessions', () => {
    const store = storeWith('a');
    store.appendBatch([status('a', 1)]);
    expect(() => store.appendBatch([status('a', 1)])).toThrow(/expected seq 2/);
    expect(() => store.appendBatch([status('nope', 1)])).toThrow(/not in the store/);
  });

  it('refuses writes once closed', () => {
    const store = storeWith('a');
    store.close();
    expect(() => store.appendBatch([status('a', 1)])).toThrow(/closed/);
  });
});

describe('MemoryEventStore: retention', () => {
  it('keeps everything without a retention setting', () => {
    const store = storeWith('a');
    store.appendBatch(log('a', 500));
    expect(store.firstKeptSeq('a')).toBe(1);
    expect(store.readSnapshot('a')).toBeUndefined();
  });

  it('trims old events once over the cap and keeps their fold as a snapshot', () => {
    const store = storeWith('a', { maxEventsPerSession: 8 });
    const events = log('a', 9);
    store.appendBatch(events);
    const firstKept = store.firstKeptSeq('a')!;
    expect(firstKept).toBeGreaterThan(1);
    expect(store.readEvents('a', 0)).toEqual(events.slice(firstKept - 1));
    expect(store.readEvents('a', 0).length).toBeLessThanOrEqual(8);
    const snapshot = store.readSnapshot('a')!;
    expect(snapshot.seq).toBe(firstKept - 1);
    expect(snapshot.steps).toEqual(toSnapshot(fold(events.slice(0, firstKept - 1))).steps);
    expect(snapshot.session).toMatchObject({ sessionId: 'a', task: 'task of a', status: 'running', revision: 0 });
  });

  it('never keeps more than the cap however the events arrive', () => {
    const store = storeWith('a', { maxEventsPerSession: 5 });
    const events = log('a', 40);
    for (const event of events) {
      store.appendBatch([event]);
      expect(store.readEvents('a', 0).length).toBeLessThanOrEqual(5);
    }
    const firstKept = store.firstKeptSeq('a')!;
    expect(store.readSnapshot('a')?.seq).toBe(firstKept - 1);
    const snapshotSteps = store.readSnapshot('a')!.steps;
    expect(snapshotSteps[0]?.content).toBe(events.slice(2, firstKept - 1).map((event) => (event as { text: string }).text).join(''));
  });

  it('refuses a retention below one event', () => {
    expect(() => new MemoryEventStore({ maxEventsPerSession: 0 })).toThrow(RangeError);
  });
});
