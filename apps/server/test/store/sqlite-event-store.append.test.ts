import fc from 'fast-check';
import type { SessionEvent } from '@interthought/protocol';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSqliteEventStore, type SqliteEventStore } from '../../src/core/sqlite-event-store.js';
import { EventScript, makeTempDir, sessionLog, sessionRecord } from './store-fixtures.js';

let temp: ReturnType<typeof makeTempDir>;
let store: SqliteEventStore;

beforeEach(() => {
  temp = makeTempDir();
  store = openSqliteEventStore(temp.file());
  store.createSession(sessionRecord('s1'));
  store.createSession(sessionRecord('s2'));
});

afterEach(() => {
  store.close();
  temp.cleanup();
});

describe('SqliteEventStore appendBatch', () => {
  it('reads back every appended event, equal and in seq order, and advances lastSeq', () => {
    const log = sessionLog('s1', 30);
    store.appendBatch(log.slice(0, 12));
    store.appendBatch(log.slice(12));
    expect(store.readEvents('s1', 0)).toEqual(log);
    expect(store.getSession('s1')?.lastSeq).toBe(30);
    expect(store.firstKeptSeq('s1')).toBe(1);
  });

  it('reads only events after the cursor, at most limit of them', () => {
    const log = sessionLog('s1', 10);
    store.appendBatch(log);
    expect(store.readEvents('s1', 4).map((e) => e.seq)).toEqual([5, 6, 7, 8, 9, 10]);
    expect(store.readEvents('s1', 4, 3).map((e) => e.seq)).toEqual([5, 6, 7]);
    expect(store.readEvents('s1', 10)).toEqual([]);
    expect(store.readEvents('s1', 4, 0)).toEqual([]);
  });

  it('serves the stored JSON of each event as is', () => {
    const log = sessionLog('s1', 5);
    store.appendBatch(log);
    expect(store.readEventFrames('s1', 2)).toEqual(log.slice(2).map((e) => JSON.stringify(e)));
  });

  it('writes a batch of several sessions in one go', () => {
    const a = new EventScript('s1');
    const b = new EventScript('s2');
    store.appendBatch([a.status('running'), b.status('running'), ...a.step(['x']), b.started()]);
    expect(store.getSession('s1')?.lastSeq).toBe(4);
    expect(store.getSession('s2')?.lastSeq).toBe(2);
    expect(store.readEvents('s2', 0).map((e) => e.type)).toEqual(['session.status', 'step.started']);
  });

  it('accepts an empty batch without writing anything', () => {
    store.appendBatch([]);
    expect(store.getSession('s1')?.lastSeq).toBe(0);
  });

  it('has no first kept seq for an empty log', () => {
    expect(store.firstKeptSeq('s1')).toBeUndefined();
  });

  it('refuses a batch with a seq gap and writes none of it, for any session', () => {
    const a = new EventScript('s1');
    const b = new EventScript('s2');
    const good = [a.status('running'), b.status('running')];
    const gap: SessionEvent = { ...a.started(), seq: 5 };
    expect(() => store.appendBatch([...good, gap])).toThrow(expect.objectContaining({ code: 'SEQ_NOT_CONTIGUOUS' }));
    expect(store.readEvents('s1', 0)).toEqual([]);
    expect(store.readEvents('s2', 0)).toEqual([]);
    expect(store.getSession('s1')?.lastSeq).toBe(0);
    expect(store.getSession('s2')?.lastSeq).toBe(0);
  });

  it('refuses a batch that does not continue the stored lastSeq', () => {
    const a = new EventScript('s1');
    const first = [a.status('running'), a.started()];
    store.appendBatch(first);
    expect(() => store.appendBatch(first)).toThrow(/seq 1 does not follow seq 2/);
    expect(() => store.appendBatch([new EventScript('s1', 3).status('paused')])).toThrow(/seq 4 does not follow seq 2/);
    expect(store.getSession('s1')?.lastSeq).toBe(2);
  });

  it('refuses a batch repeating a seq within itself', () => {
    const a = new EventScript('s1');
    const event = a.status('running');
    expect(() => store.appendBatch([event, event])).toThrow(expect.objectContaining({ code: 'SEQ_NOT_CONTIGUOUS' }));
    expect(store.readEvents('s1', 0)).toEqual([]);
  });

  it('refuses a batch naming an unknown session and writes none of it', () => {
    const good = new EventScript('s1').status('running');
    const stray = new EventScript('ghost').status('running');
    expect(() => store.appendBatch([good, stray])).toThrow(expect.objectContaining({ code: 'SESSION_NOT_FOUND' }));
    expect(store.readEvents('s1', 0)).toEqual([]);
  });

  it('refuses an event that cannot be serialised, writing nothing', () => {
    const a = new EventScript('s1');
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    const started = a.started('observation');
    const bad = { ...a.completed('done'), result: cyclic } as SessionEvent;
    expect(() => store.appendBatch([started, bad])).toThrow(expect.objectContaining({ code: 'BAD_EVENT' }));
    expect(store.readEvents('s1', 0)).toEqual([]);
  });

  it('stays usable after a refused batch', () => {
    const a = new EventScript('s1');
    expect(() => store.appendBatch([{ ...a.status('running'), seq: 2 }])).toThrow();
    store.appendBatch([new EventScript('s1').status('running')]);
    expect(store.getSession('s1')?.lastSeq).toBe(1);
  });

  it('keeps every session gap-free when many sessions write interleaved batches', () => {
    const ids = Array.from({ length: 12 }, (_, i) => `many-${i}`);
    const logs = new Map(ids.map((id) => [id, sessionLog(id, 40)]));
    // Each tick takes the next 1-4 events of a few sessions, in any order, as the core's ticks do.
    const ticks = fc.array(fc.array(fc.tuple(fc.nat(ids.length - 1), fc.integer({ min: 1, max: 4 })), { minLength: 1, maxLength: 8 }), {
      minLength: 20,
      maxLength: 60,
    });
    let run = 0;
    fc.assert(
      fc.property(ticks, (picks) => {
        const writer = openSqliteEventStore(temp.file(`interleaved-${++run}.db`));
        try {
          for (const id of ids) writer.createSession(sessionRecord(id));
          const written = new Map(ids.map((id) => [id, 0]));
          for (const tick of picks) {
            const batch: SessionEvent[] = [];
            for (const [which, count] of tick) {
              const id = ids[which] ?? '';
              const from = written.get(id) ?? 0;
              batch.push(...(logs.get(id) ?? []).slice(from, from + count));
              written.set(id, Math.min(from + count, 40));
            }
            writer.appendBatch(batch);
          }
          for (const id of ids) {
            expect(writer.readEvents(id, 0)).toEqual(logs.get(id)?.slice(0, written.get(id)));
            expect(writer.getSession(id)?.lastSeq).toBe(written.get(id));
          }
        } finally {
          writer.close();
        }
      }),
      { numRuns: 20 },
    );
  });
});
