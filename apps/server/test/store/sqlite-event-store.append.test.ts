import fc from 'fast-check';
import type { SessionEvent } from '@interthought/protocol';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSqliteEventStore, type SqliteEventStore } from '../../src/store/sqlite-event-store.js';
import { EventScript, batchOf, makeTempDir, sessionLog, sessionRecord } from './store-fixtures.js';

let temp: ReturnType<typeof makeTempDir>;
let store: SqliteEventStore;

beforeEach(async () => {
  temp = makeTempDir();
  store = openSqliteEventStore(temp.file());
  await store.createSession(sessionRecord('s1'));
  await store.createSession(sessionRecord('s2'));
});

afterEach(async () => {
  await store.close();
  temp.cleanup();
});

describe('SqliteEventStore appendBatch', () => {
  it('reads back every appended event, equal and in seq order, and advances lastSeq', async () => {
    const log = sessionLog('s1', 30);
    await store.appendBatch(batchOf(log.slice(0, 12)));
    await store.appendBatch(batchOf(log.slice(12)));
    expect(await store.readEvents('s1', 0)).toEqual(log);
    expect((await store.getSession('s1'))?.lastSeq).toBe(30);
    expect(await store.firstKeptSeq('s1')).toBe(1);
  });

  it('reads only events after the cursor, at most limit of them', async () => {
    const log = sessionLog('s1', 10);
    await store.appendBatch(batchOf(log));
    expect((await store.readEvents('s1', 4)).map((e) => e.seq)).toEqual([5, 6, 7, 8, 9, 10]);
    expect((await store.readEvents('s1', 4, 3)).map((e) => e.seq)).toEqual([5, 6, 7]);
    expect(await store.readEvents('s1', 10)).toEqual([]);
    expect(await store.readEvents('s1', 4, 0)).toEqual([]);
  });

  it('serves the stored JSON of each event as is', async () => {
    const log = sessionLog('s1', 5);
    await store.appendBatch(batchOf(log));
    expect(await store.readEventFrames('s1', 2)).toEqual(log.slice(2).map((e) => JSON.stringify(e)));
  });

  it('writes a batch of several sessions in one go', async () => {
    const a = new EventScript('s1');
    const b = new EventScript('s2');
    await store.appendBatch(batchOf([a.status('running'), b.status('running'), ...a.step(['x']), b.started()]));
    expect((await store.getSession('s1'))?.lastSeq).toBe(4);
    expect((await store.getSession('s2'))?.lastSeq).toBe(2);
    expect((await store.readEvents('s2', 0)).map((e) => e.type)).toEqual(['session.status', 'step.started']);
  });

  it('accepts an empty batch without writing anything', async () => {
    await store.appendBatch(batchOf([]));
    expect((await store.getSession('s1'))?.lastSeq).toBe(0);
  });

  it('has no first kept seq for an empty log', async () => {
    expect(await store.firstKeptSeq('s1')).toBeUndefined();
  });

  it('refuses a batch with a seq gap and writes none of it, for any session', async () => {
    const a = new EventScript('s1');
    const b = new EventScript('s2');
    const good = [a.status('running'), b.status('running')];
    const gap: SessionEvent = { ...a.started(), seq: 5 };
    await expect(store.appendBatch(batchOf([...good, gap]))).rejects.toMatchObject({ code: 'SEQ_NOT_CONTIGUOUS' });
    expect(await store.readEvents('s1', 0)).toEqual([]);
    expect(await store.readEvents('s2', 0)).toEqual([]);
    expect((await store.getSession('s1'))?.lastSeq).toBe(0);
    expect((await store.getSession('s2'))?.lastSeq).toBe(0);
  });

  it('refuses a batch that does not continue the stored lastSeq', async () => {
    const a = new EventScript('s1');
    const first = [a.status('running'), a.started()];
    await store.appendBatch(batchOf(first));
    await expect(store.appendBatch(batchOf(first))).rejects.toThrow(/seq 1 does not follow seq 2/);
    await expect(store.appendBatch(batchOf([new EventScript('s1', 3).status('paused')]))).rejects.toThrow(/seq 4 does not follow seq 2/);
    expect((await store.getSession('s1'))?.lastSeq).toBe(2);
  });

  it('refuses a batch repeating a seq within itself', async () => {
    const a = new EventScript('s1');
    const event = a.status('running');
    await expect(store.appendBatch(batchOf([event, event]))).rejects.toMatchObject({ code: 'SEQ_NOT_CONTIGUOUS' });
    expect(await store.readEvents('s1', 0)).toEqual([]);
  });

  it('refuses a batch naming an unknown session and writes none of it', async () => {
    const good = new EventScript('s1').status('running');
    const stray = new EventScript('ghost').status('running');
    await expect(store.appendBatch(batchOf([good, stray]))).rejects.toMatchObject({ code: 'SESSION_NOT_FOUND' });
    expect(await store.readEvents('s1', 0)).toEqual([]);
  });

  it('refuses an event that cannot be serialised, writing nothing', async () => {
    const a = new EventScript('s1');
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    const started = a.started('observation');
    const bad = { ...a.completed('done'), result: cyclic } as SessionEvent;
    // Given no frames, the store serialises each event itself (batchOf's JSON.stringify would throw first).
    await expect(store.appendBatch({ events: [started, bad], frames: [] })).rejects.toMatchObject({ code: 'BAD_EVENT' });
    expect(await store.readEvents('s1', 0)).toEqual([]);
  });

  it('stays usable after a refused batch', async () => {
    const a = new EventScript('s1');
    await expect(store.appendBatch(batchOf([{ ...a.status('running'), seq: 2 }]))).rejects.toThrow();
    await store.appendBatch(batchOf([new EventScript('s1').status('running')]));
    expect((await store.getSession('s1'))?.lastSeq).toBe(1);
  });

  it('keeps every session gap-free when many sessions write interleaved batches', async () => {
    const ids = Array.from({ length: 12 }, (_, i) => `many-${i}`);
    const logs = new Map(ids.map((id) => [id, sessionLog(id, 40)]));
    // Each tick takes the next 1-4 events of a few sessions, in any order, as the core's ticks do.
    const ticks = fc.array(fc.array(fc.tuple(fc.nat(ids.length - 1), fc.integer({ min: 1, max: 4 })), { minLength: 1, maxLength: 8 }), {
      minLength: 20,
      maxLength: 60,
    });
    let run = 0;
    await fc.assert(
      fc.asyncProperty(ticks, async (picks) => {
        const writer = openSqliteEventStore(temp.file(`interleaved-${++run}.db`));
        try {
          for (const id of ids) await writer.createSession(sessionRecord(id));
          const written = new Map(ids.map((id) => [id, 0]));
          for (const tick of picks) {
            const batch: SessionEvent[] = [];
            for (const [which, count] of tick) {
              const id = ids[which] ?? '';
              const from = written.get(id) ?? 0;
              batch.push(...(logs.get(id) ?? []).slice(from, from + count));
              written.set(id, Math.min(from + count, 40));
            }
            await writer.appendBatch(batchOf(batch));
          }
          for (const id of ids) {
            expect(await writer.readEvents(id, 0)).toEqual(logs.get(id)?.slice(0, written.get(id)));
            expect((await writer.getSession(id))?.lastSeq).toBe(written.get(id));
          }
        } finally {
          await writer.close();
        }
      }),
      { numRuns: 20 },
    );
  });
});
