import { toSnapshot, type SessionEvent, type SessionInfo } from '@interthought/protocol';
import { describe, expect, it } from 'vitest';
import { MemoryEventStore } from '../../src/store/memory-event-store.js';
import { SessionError } from '../../src/core/session-error.js';
import { batchOf } from './store-fixtures.js';
import { fold } from '../core/support/harness.js';

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

async function storeWith(sessionId: string, options: ConstructorParameters<typeof MemoryEventStore>[0] = {}): Promise<MemoryEventStore> {
  const store = new MemoryEventStore(options);
  await store.createSession({ info: info(sessionId), options: { tokenDelayMs: 5 }, lastSeq: 0 });
  return store;
}

describe('MemoryEventStore: sessions', () => {
  it('keeps a record with its options and the last seq written', async () => {
    const store = await storeWith('a');
    await store.appendBatch(batchOf(log('a', 4)));
    expect(await store.getSession('a')).toEqual({ info: info('a'), options: { tokenDelayMs: 5 }, lastSeq: 4 });
  });

  it('hands out copies, so callers cannot change what is stored', async () => {
    const store = await storeWith('a');
    const record = (await store.getSession('a'))!;
    record.info.status = 'failed';
    record.lastSeq = 99;
    expect((await store.getSession('a'))?.info.status).toBe('running');
    expect((await store.getSession('a'))?.lastSeq).toBe(0);
  });

  it('refuses to create the same session twice', async () => {
    const store = await storeWith('a');
    await expect(store.createSession({ info: info('a'), options: {}, lastSeq: 0 })).rejects.toThrow(/already exists/);
  });

  it('updates the summary and finds sessions by status', async () => {
    const store = await storeWith('a');
    await store.createSession({ info: info('b'), options: {}, lastSeq: 0 });
    await store.updateSession({ ...info('b'), status: 'completed', revision: 2 });
    expect((await store.listSessionsByStatus('running')).map((record) => record.info.sessionId)).toEqual(['a']);
    expect(await store.listSessionsByStatus('completed')).toEqual([{ info: { ...info('b'), status: 'completed', revision: 2 }, options: {}, lastSeq: 0 }]);
  });

  it('lists sessions newest first, one page at a time', async () => {
    const store = new MemoryEventStore();
    for (const id of ['a', 'b', 'c', 'd', 'e']) await store.createSession({ info: info(id), options: {}, lastSeq: 0 });
    const first = await store.listSessions({ limit: 2 });
    expect(first.sessions.map((session) => session.sessionId)).toEqual(['e', 'd']);
    const second = await store.listSessions({ limit: 2, before: first.nextCursor! });
    expect(second.sessions.map((session) => session.sessionId)).toEqual(['c', 'b']);
    const last = await store.listSessions({ limit: 2, before: second.nextCursor! });
    expect(last.sessions.map((session) => session.sessionId)).toEqual(['a']);
    expect(last.nextCursor).toBeUndefined();
  });

  it('refuses a list cursor it did not issue with BAD_CURSOR', async () => {
    const store = await storeWith('a');
    const refusal = await store.listSessions({ limit: 10, before: 'yesterday' }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refusal).toBeInstanceOf(SessionError);
    expect((refusal as SessionError).code).toBe('BAD_CURSOR');
  });

  it('deletes a session with its events', async () => {
    const store = await storeWith('a');
    await store.appendBatch(batchOf(log('a', 3)));
    await store.deleteSession('a');
    expect(await store.getSession('a')).toBeUndefined();
    expect(await store.readEvents('a', 0)).toEqual([]);
  });
});

describe('MemoryEventStore: event log', () => {
  it('reads the events after a seq, in order, up to a limit', async () => {
    const store = await storeWith('a');
    const events = log('a', 6);
    await store.appendBatch(batchOf(events));
    expect(await store.readEvents('a', 0)).toEqual(events);
    expect(await store.readEvents('a', 3)).toEqual(events.slice(3));
    expect(await store.readEvents('a', 2, 2)).toEqual(events.slice(2, 4));
    expect(await store.readEvents('a', 6)).toEqual([]);
    expect(await store.firstKeptSeq('a')).toBe(1);
  });

  it('has no first kept seq for an empty log', async () => {
    expect(await (await storeWith('a')).firstKeptSeq('a')).toBeUndefined();
  });

  it('writes events of several sessions in one batch', async () => {
    const store = await storeWith('a');
    await store.createSession({ info: info('b'), options: {}, lastSeq: 0 });
    await store.appendBatch(batchOf([status('a', 1), status('b', 1), status('a', 2, 'paused')]));
    expect((await store.getSession('a'))?.lastSeq).toBe(2);
    expect((await store.getSession('b'))?.lastSeq).toBe(1);
  });

  it('refuses a batch with a seq gap and writes none of it', async () => {
    const store = await storeWith('a');
    await store.appendBatch(batchOf([status('a', 1)]));
    await expect(store.appendBatch(batchOf([status('a', 2), status('a', 4)]))).rejects.toThrow(/expected seq 3/);
    expect((await store.getSession('a'))?.lastSeq).toBe(1);
    expect(await store.readEvents('a', 0)).toHaveLength(1);
  });

  it('refuses a replayed seq and events of unknown sessions', async () => {
    const store = await storeWith('a');
    await store.appendBatch(batchOf([status('a', 1)]));
    await expect(store.appendBatch(batchOf([status('a', 1)]))).rejects.toThrow(/expected seq 2/);
    await expect(store.appendBatch(batchOf([status('nope', 1)]))).rejects.toThrow(/not in the store/);
  });

  it('refuses writes once closed', async () => {
    const store = await storeWith('a');
    await store.close();
    await expect(store.appendBatch(batchOf([status('a', 1)]))).rejects.toThrow(/closed/);
  });
});

describe('MemoryEventStore: retention', () => {
  it('keeps everything without a retention setting', async () => {
    const store = await storeWith('a');
    await store.appendBatch(batchOf(log('a', 500)));
    expect(await store.firstKeptSeq('a')).toBe(1);
    expect(await store.readSnapshot('a')).toBeUndefined();
  });

  it('trims old events once over the cap and keeps their fold as a snapshot', async () => {
    const store = await storeWith('a', { maxEventsPerSession: 8 });
    const events = log('a', 9);
    await store.appendBatch(batchOf(events));
    const firstKept = (await store.firstKeptSeq('a'))!;
    expect(firstKept).toBeGreaterThan(1);
    expect(await store.readEvents('a', 0)).toEqual(events.slice(firstKept - 1));
    expect((await store.readEvents('a', 0)).length).toBeLessThanOrEqual(8);
    const snapshot = (await store.readSnapshot('a'))!;
    expect(snapshot.seq).toBe(firstKept - 1);
    expect(snapshot.steps).toEqual(toSnapshot(fold(events.slice(0, firstKept - 1))).steps);
    expect(snapshot.session).toMatchObject({ sessionId: 'a', task: 'task of a', status: 'running', revision: 0 });
  });

  it('never keeps more than the cap however the events arrive', async () => {
    const store = await storeWith('a', { maxEventsPerSession: 5 });
    const events = log('a', 40);
    for (const event of events) {
      await store.appendBatch(batchOf([event]));
      expect((await store.readEvents('a', 0)).length).toBeLessThanOrEqual(5);
    }
    const firstKept = (await store.firstKeptSeq('a'))!;
    expect((await store.readSnapshot('a'))?.seq).toBe(firstKept - 1);
    const snapshotSteps = (await store.readSnapshot('a'))!.steps;
    expect(snapshotSteps[0]?.content).toBe(events.slice(2, firstKept - 1).map((event) => (event as { text: string }).text).join(''));
  });

  it('refuses a retention below one event', () => {
    expect(() => new MemoryEventStore({ maxEventsPerSession: 0 })).toThrow(RangeError);
  });
});
