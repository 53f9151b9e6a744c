import type { CorrectionRecord } from '@interthought/protocol';
import { describe, expect, it } from 'vitest';
import type { EventStore } from '../../../src/core/persistence/event-store.js';
import { CorrectionCursorError, type CorrectionQuery, type IndexedCorrection } from '../../../src/corrections/correction-index.js';
import { orderKey } from '../../../src/corrections/correction-order.js';
import { batchOf, correctionRecord as correction, sessionLog, sessionRecord } from '../store-fixtures.js';
import type { StoreHarness } from './store-harness.js';

const at = (second: number): string => `2025-01-01T00:00:${String(second).padStart(2, '0')}.000Z`;

/** Newest first, as every index orders: `at`, then session and step, descending. */
function newestFirst(records: readonly IndexedCorrection[]): CorrectionRecord[] {
  return records.map((indexed) => indexed.record).sort((a, b) => (orderKey(a) < orderKey(b) ? 1 : -1));
}

/** The records of three sessions: s1 owned by ada, s2 by bob, s3 by nobody; two of them at the same instant. */
const RECORDS: IndexedCorrection[] = [
  { record: correction('s1', 1, at(1)), ownerId: 'ada' },
  { record: correction('s1', 2, at(4), { kind: 'tool_call', tool: 'calculator', model: 'gpt-x' }), ownerId: 'ada' },
  { record: correction('s2', 1, at(2), { by: 'bob', agent: 'openai', model: 'gpt-x' }), ownerId: 'bob' },
  { record: correction('s2', 2, at(4), { by: 'bob', correction: 'rejected' }), ownerId: 'bob' },
  { record: correction('s3', 1, at(3), { kind: 'tool_call', tool: 'search' }) },
];

/** The index of corrections each store keeps with its log (PROTOCOL.md §26): written with a batch, gone with its session. */
export function describeCorrections<S extends EventStore>(name: string, harness: StoreHarness<S>): void {
  /** A store whose three sessions each got one batch of events carrying their corrections. */
  async function indexed(): Promise<S> {
    const store = await harness.open();
    for (const sessionId of ['s1', 's2', 's3']) {
      await store.createSession(sessionRecord(sessionId));
      const corrections = RECORDS.filter((indexed) => indexed.record.sessionId === sessionId);
      await store.appendBatch({ ...batchOf(sessionLog(sessionId, 4)), corrections });
    }
    return store;
  }

  const everyone = { all: true } as const;
  const query = (rest: Partial<CorrectionQuery> = {}): CorrectionQuery => ({ filter: {}, visibility: everyone, limit: 100, ...rest });
  const ids = (records: readonly CorrectionRecord[]): string[] => records.map((record) => record.correctedStepId);

  describe(`${name}: the corrections index`, () => {
    it('lists a batch’s corrections newest first, page by page, through every filter', async () => {
      const store = await indexed();
      const all = newestFirst(RECORDS);
      expect((await store.corrections.page(query())).corrections).toEqual(all);

      const seen: CorrectionRecord[] = [];
      let before: string | undefined;
      let pages = 0;
      do {
        const page = await store.corrections.page(query({ limit: 2, ...(before === undefined ? {} : { before }) }));
        expect(page.corrections.length).toBeLessThanOrEqual(2);
        seen.push(...page.corrections);
        before = page.nextCursor;
        pages += 1;
      } while (before !== undefined);
      expect(seen).toEqual(all);
      expect(pages).toBe(3);

      const only = async (filter: CorrectionQuery['filter']): Promise<string[]> => ids((await store.corrections.page(query({ filter }))).corrections);
      expect(await only({ agent: 'openai' })).toEqual(['s2-c1']);
      expect(await only({ model: 'gpt-x' })).toEqual(['s1-c2', 's2-c1']);
      expect(await only({ kind: 'tool_call' })).toEqual(['s1-c2', 's3-c1']);
      expect(await only({ tool: 'search' })).toEqual(['s3-c1']);
      expect(await only({ user: 'bob' })).toEqual(['s2-c2', 's2-c1']);
      expect(await only({ session: 's1' })).toEqual(['s1-c2', 's1-c1']);
      // Any offset: the same instant as the stored UTC times.
      expect(await only({ since: '2025-01-01T01:00:03.000+01:00' })).toEqual(['s2-c2', 's1-c2', 's3-c1']);
      expect(await only({ until: at(3) })).toEqual(['s2-c1', 's1-c1']);
      expect(await only({ kind: 'tool_call', tool: 'calculator', since: at(4) })).toEqual(['s1-c2']);
      expect(await only({ agent: 'nobody' })).toEqual([]);
    });

    it('shows a reader only the sessions they own or were shared, and leaves out an excluded session', async () => {
      const store = await indexed();
      const visible = async (rest: Partial<CorrectionQuery>): Promise<string[]> => ids((await store.corrections.page(query(rest))).corrections);
      expect(await visible({ visibility: { all: false, ownerId: 'ada' } })).toEqual(['s1-c2', 's1-c1']);
      expect(await visible({ visibility: { all: false, ownerId: 'bob', sessionIds: ['s3'] } })).toEqual(['s2-c2', 's3-c1', 's2-c1']);
      expect(await visible({ visibility: { all: false, sessionIds: ['s1', 's3'] } })).toEqual(['s1-c2', 's3-c1', 's1-c1']);
      expect(await visible({ visibility: { all: false } })).toEqual([]);
      expect(await visible({ excludeSession: 's2' })).toEqual(['s1-c2', 's3-c1', 's1-c1']);
      await expect(store.corrections.page(query({ before: 'not-a-cursor' }))).rejects.toBeInstanceOf(CorrectionCursorError);
    });

    it('replaces a record written again (a retried batch, a second rebuild) and deletes a session’s with it', async () => {
      const store = await indexed();
      const edited: IndexedCorrection = { record: { ...RECORDS[0]!.record, after: 'edited again' }, ownerId: 'ada' };
      await store.corrections.putRebuilt([edited]);
      await store.corrections.putRebuilt([edited, ...RECORDS.slice(1)]);
      const all = (await store.corrections.page(query())).corrections;
      expect(all).toHaveLength(RECORDS.length);
      expect(all.find((record) => record.correctedStepId === 's1-c1')?.after).toBe('edited again');

      await store.deleteSession('s2');
      expect(ids((await store.corrections.page(query())).corrections)).toEqual(['s1-c2', 's3-c1', 's1-c1']);
      expect((await store.corrections.page(query({ filter: { session: 's2' } }))).corrections).toEqual([]);
    });

    it('writes none of a refused batch’s corrections', async () => {
      const store = await harness.open();
      await store.createSession(sessionRecord('s1'));
      const log = sessionLog('s1', 6);
      await store.appendBatch(batchOf(log.slice(0, 3)));
      // Seqs 5 and 6 do not follow seq 3: refused, and so is the correction they carry.
      await expect(store.appendBatch({ ...batchOf(log.slice(4)), corrections: [RECORDS[0]!] })).rejects.toThrow();
      expect((await store.corrections.page(query())).corrections).toEqual([]);
      await store.appendBatch({ ...batchOf(log.slice(3)), corrections: [RECORDS[0]!] });
      expect((await store.corrections.page(query())).corrections).toEqual([RECORDS[0]!.record]);
    });

    if (harness.reopen !== undefined) {
      const reopen = harness.reopen;
      it('keeps the index and whether it is built across a reopen: no rebuild after a restart', async () => {
        const store = await indexed();
        await store.corrections.markBuilt();
        await store.corrections.markBuilt();
        expect(await store.corrections.isBuilt()).toBe(true);
        const again = await reopen(store);
        expect(await again.corrections.isBuilt()).toBe(true);
        expect((await again.corrections.page(query())).corrections).toEqual(newestFirst(RECORDS));
      });
    }
  });
}
