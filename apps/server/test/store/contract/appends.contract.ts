import fc from 'fast-check';
import type { SessionEvent } from '@interthought/protocol';
import { describe, expect, it } from 'vitest';
import type { EventStore } from '../../../src/core/persistence/event-store.js';
import { EventScript, batchOf, sessionInfo, sessionLog, sessionRecord } from '../store-fixtures.js';
import type { StoreHarness } from './store-harness.js';

/** `appendBatch` (contiguous seqs, refusals that write nothing) and the reads of the log. */
export function describeAppends<S extends EventStore>(name: string, harness: StoreHarness<S>): void {
  const { differences } = harness;

  async function storeWith(...sessionIds: string[]): Promise<S> {
    const store = await harness.open();
    for (const id of sessionIds) await store.createSession(sessionRecord(id));
    return store;
  }

  describe(`${name}: appendBatch and reads`, () => {
    it('reads back every appended event, equal and in seq order, and advances lastSeq', async () => {
      const store = await storeWith('s1');
      const log = sessionLog('s1', 30);
      await store.appendBatch(batchOf(log.slice(0, 12)));
      await store.appendBatch(batchOf(log.slice(12)));
      expect(await store.readEvents('s1', 0)).toEqual(log);
      expect(await store.getSession('s1')).toEqual({ ...sessionRecord('s1'), lastSeq: 30 });
      expect(await store.firstKeptSeq('s1')).toBe(1);
    });

    it('reads only events after the cursor, at most limit of them', async () => {
      const store = await storeWith('s1');
      const log = sessionLog('s1', 10);
      await store.appendBatch(batchOf(log));
      expect(await store.readEvents('s1', 4)).toEqual(log.slice(4));
      expect((await store.readEvents('s1', 4, 3)).map((e) => e.seq)).toEqual([5, 6, 7]);
      expect(await store.readEvents('s1', 2, 2)).toEqual(log.slice(2, 4));
      expect(await store.readEvents('s1', 10)).toEqual([]);
      expect(await store.readEvents('s1', 4, 0)).toEqual([]);
      expect(await store.readEvents('s1', 0, 0)).toEqual([]);
      expect(await store.readEvents('unknown', 0)).toEqual([]);
    });

    it('serves the stored JSON of each event as is', async () => {
      const store = await storeWith('s1');
      const log = sessionLog('s1', 5);
      await store.appendBatch(batchOf(log));
      expect(await store.readEventFrames('s1', 2)).toEqual(log.slice(2).map((e) => JSON.stringify(e)));
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

    it('writes the events and summaries of several sessions in one batch', async () => {
      const store = await storeWith('s1', 's2');
      const a = sessionLog('s1', 5);
      const b = sessionLog('s2', 3);
      const interleaved = [a[0], b[0], a[1], a[2], b[1], b[2], a[3], a[4]] as SessionEvent[];
      const completed = { ...sessionInfo('s2'), status: 'completed' as const };
      await store.appendBatch(batchOf(interleaved, [completed]));

      expect(await store.readEvents('s1', 0)).toEqual(a);
      expect(await store.readEvents('s2', 0)).toEqual(b);
      expect(await store.getSession('s1')).toEqual({ ...sessionRecord('s1'), lastSeq: 5 });
      expect(await store.getSession('s2')).toEqual({ info: completed, options: { tokenDelayMs: 5 }, lastSeq: 3 });
    });

    it('writes a summary that comes without events of its session', async () => {
      const store = await storeWith('s1', 's2');
      const paused = { ...sessionInfo('s2'), status: 'paused' as const };
      await store.appendBatch(batchOf(sessionLog('s1', 1), [paused]));
      expect(await store.getSession('s2')).toEqual({ ...sessionRecord('s2'), info: paused });
    });

    it('accepts an empty batch without writing anything', async () => {
      const store = await storeWith('s1');
      await store.appendBatch(batchOf([]));
      expect(await store.getSession('s1')).toEqual(sessionRecord('s1'));
    });

    it('says which seq is the first kept one: none before the first event', async () => {
      const store = await storeWith('s1');
      expect(await store.firstKeptSeq('s1')).toBeUndefined();
      expect(await store.firstKeptSeq('unknown')).toBeUndefined();
      await store.appendBatch(batchOf(sessionLog('s1', 2)));
      expect(await store.firstKeptSeq('s1')).toBe(1);
      expect(await store.readSnapshot('s1')).toBeUndefined();
    });

    it('stays usable after a refused batch', async () => {
      const store = await storeWith('s1');
      await expect(store.appendBatch(batchOf([{ ...new EventScript('s1').status('running'), seq: 2 }]))).rejects.toThrow();
      await store.appendBatch(batchOf([new EventScript('s1').status('running')]));
      expect((await store.getSession('s1'))?.lastSeq).toBe(1);
    });
  });

  describe(`${name}: appendBatch refusals`, () => {
    it('refuses a batch with a seq gap and writes none of it, for any session', async () => {
      const store = await storeWith('s1', 's2');
      const a = new EventScript('s1');
      const b = new EventScript('s2');
      const good = [a.status('running'), b.status('running')];
      const gap: SessionEvent = { ...a.started(), seq: 5 };
      await harness.expectRefusal(store.appendBatch(batchOf([...good, gap])), { code: 'SEQ_NOT_CONTIGUOUS', sessionId: 's1', after: 1, got: 5 });
      expect(await store.readEvents('s1', 0)).toEqual([]);
      expect(await store.readEvents('s2', 0)).toEqual([]);
      expect((await store.getSession('s1'))?.lastSeq).toBe(0);
      expect((await store.getSession('s2'))?.lastSeq).toBe(0);
    });

    it('refuses a batch whose seqs do not continue the stored log, and writes nothing', async () => {
      const store = await storeWith('s1');
      const log = sessionLog('s1', 6);
      await store.appendBatch(batchOf(log.slice(0, 2)));
      await harness.expectRefusal(store.appendBatch(batchOf(log.slice(3, 5))), { code: 'SEQ_NOT_CONTIGUOUS', sessionId: 's1', after: 2, got: 4 });
      const skipping = [log[2], log[4]] as SessionEvent[];
      await harness.expectRefusal(store.appendBatch(batchOf(skipping)), { code: 'SEQ_NOT_CONTIGUOUS', sessionId: 's1', after: 3, got: 5 });
      expect(await store.readEvents('s1', 0)).toEqual(log.slice(0, 2));
      expect((await store.getSession('s1'))?.lastSeq).toBe(2);
    });

    it(`answers a batch repeating the stored events exactly as a retry that is ${differences.repeatedBatch}, writing nothing twice`, async () => {
      const store = await storeWith('s1');
      const first = sessionLog('s1', 2);
      await store.appendBatch(batchOf(first));
      const again = store.appendBatch(batchOf(first));
      if (differences.repeatedBatch === 'accepted') await expect(again).resolves.toBeUndefined();
      else await harness.expectRefusal(again, { code: 'SEQ_NOT_CONTIGUOUS', sessionId: 's1', after: 2, got: 1 });
      expect(await store.readEvents('s1', 0)).toEqual(first);
      expect((await store.getSession('s1'))?.lastSeq).toBe(2);
    });

    it('refuses a batch that repeats stored seqs with other contents', async () => {
      const store = await storeWith('s1');
      const log = sessionLog('s1', 4);
      await store.appendBatch(batchOf(log.slice(0, 3)));
      const rewritten = { ...log[2], at: '2030-01-01T00:00:00.000Z' } as SessionEvent;
      const refusal = { code: 'SEQ_NOT_CONTIGUOUS', sessionId: 's1', after: 3, got: 3 } as const;
      await harness.expectRefusal(store.appendBatch(batchOf([rewritten, log[3] as SessionEvent])), refusal);
      expect(await store.readEvents('s1', 0)).toEqual(log.slice(0, 3));
    });

    it('refuses a batch repeating a seq within itself', async () => {
      const store = await storeWith('s1');
      const event = new EventScript('s1').status('running');
      await harness.expectRefusal(store.appendBatch(batchOf([event, event])), { code: 'SEQ_NOT_CONTIGUOUS', sessionId: 's1', after: 1, got: 1 });
      expect(await store.readEvents('s1', 0)).toEqual([]);
    });

    it(`refuses a batch naming an unknown session, writing ${differences.batchWithUnknownSession} of it`, async () => {
      const store = await storeWith('s1');
      const good = new EventScript('s1').status('running');
      const stray = new EventScript('ghost').status('running');
      await harness.expectRefusal(store.appendBatch(batchOf([good, stray])), { code: 'SESSION_NOT_FOUND', sessionId: 'ghost' });
      expect(await store.readEvents('s1', 0)).toEqual(differences.batchWithUnknownSession === 'nothing' ? [] : [good]);
      await harness.expectRefusal(store.appendBatch(batchOf([stray])), { code: 'SESSION_NOT_FOUND', sessionId: 'ghost' });
      expect(await store.getSession('ghost')).toBeUndefined();
      expect(await store.readEvents('ghost', 0)).toEqual([]);
    });
  });

  describe(`${name}: appendBatch under interleaved writers`, () => {
    it('keeps every session gap-free when many sessions write interleaved batches', async () => {
      const store = await harness.open();
      const length = 40;
      // Each tick takes the next 1-4 events of a few sessions, in any order, as the core's ticks do.
      const ticks = fc.array(fc.array(fc.tuple(fc.nat(11), fc.integer({ min: 1, max: 4 })), { minLength: 1, maxLength: 8 }), {
        minLength: 20,
        maxLength: 60,
      });
      let run = 0;
      await fc.assert(
        // Each run writes sessions of its own, so the runs share the test's one store.
        fc.asyncProperty(ticks, async (picks) => {
          run += 1;
          const ids = Array.from({ length: 12 }, (_, i) => `run${run}-${i}`);
          const logs = new Map(ids.map((id) => [id, sessionLog(id, length)]));
          for (const id of ids) await store.createSession(sessionRecord(id));
          const written = new Map(ids.map((id) => [id, 0]));
          for (const tick of picks) {
            const batch: SessionEvent[] = [];
            for (const [which, count] of tick) {
              const id = ids[which] ?? '';
              const from = written.get(id) ?? 0;
              batch.push(...(logs.get(id) ?? []).slice(from, from + count));
              written.set(id, Math.min(from + count, length));
            }
            await store.appendBatch(batchOf(batch));
          }
          for (const id of ids) {
            expect(await store.readEvents(id, 0)).toEqual(logs.get(id)?.slice(0, written.get(id)));
            expect((await store.getSession(id))?.lastSeq).toBe(written.get(id));
          }
        }),
        { numRuns: 20 },
      );
    });
  });
}
