import { applyEvents, createSessionState, toSnapshot, type SessionEvent } from '@interthought/protocol';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { EventStore } from '../../../src/core/persistence/event-store.js';
import { stateBeforeFirstEvent } from '../../../src/core/persistence/session-loader.js';
import { batchOf, sessionInfo, sessionLog, sessionRecord } from '../store-fixtures.js';
import type { StoreHarness } from './store-harness.js';

async function appendInTicks(store: EventStore, events: SessionEvent[], perTick: number): Promise<void> {
  for (let i = 0; i < events.length; i += perTick) await store.appendBatch(batchOf(events.slice(i, i + perTick)));
}

/** The state of session r's whole log, folded from the start. */
function foldOf(events: SessionEvent[]) {
  return toSnapshot(applyEvents(stateBeforeFirstEvent(sessionInfo('r')), events));
}

/**
 * Retention: a log over the limit is trimmed to its newest events, and what was trimmed lives on
 * as a snapshot equal to its fold, so snapshot + kept events rebuild the same state as the whole log.
 */
export function describeRetention<S extends EventStore>(name: string, harness: StoreHarness<S>): void {
  const { mostKept, keptAfterTrim } = harness.retention;

  /** A store with the harness's retention limit and a session r. */
  async function retainingStore(): Promise<S> {
    const store = await harness.open({ retained: true });
    await store.createSession(sessionRecord('r'));
    return store;
  }

  describe(`${name}: retention (${keptAfterTrim} kept after a trim, at most ${mostKept})`, () => {
    afterEach(() => {
      vi.restoreAllMocks();
    });

    it('keeps every event without a retention limit', async () => {
      const store = await harness.open();
      await store.createSession(sessionRecord('r'));
      await store.appendBatch(batchOf(sessionLog('r', 500)));
      expect(await store.firstKeptSeq('r')).toBe(1);
      expect(await store.readSnapshot('r')).toBeUndefined();
    });

    it('keeps every event until the log outgrows the most it keeps', async () => {
      const store = await retainingStore();
      await store.appendBatch(batchOf(sessionLog('r', mostKept)));
      expect(await store.firstKeptSeq('r')).toBe(1);
      expect(await store.readSnapshot('r')).toBeUndefined();
    });

    it('trims back to the newest events once the log outgrows it, saving a snapshot at the trim point', async () => {
      const store = await retainingStore();
      const log = sessionLog('r', mostKept + 1);
      await store.appendBatch(batchOf(log));
      const trimmed = mostKept + 1 - keptAfterTrim;
      expect(await store.firstKeptSeq('r')).toBe(trimmed + 1);
      expect(await store.readEvents('r', 0)).toEqual(log.slice(trimmed));
      expect(await store.readSnapshot('r')).toEqual(foldOf(log.slice(0, trimmed)));
    });

    it('never keeps more than the most it keeps, however the events arrive', async () => {
      const store = await retainingStore();
      const log = sessionLog('r', 40);
      for (const event of log) {
        await store.appendBatch(batchOf([event]));
        expect((await store.readEvents('r', 0)).length).toBeLessThanOrEqual(mostKept);
      }
      const firstKept = (await store.firstKeptSeq('r')) ?? 0;
      const snapshot = await store.readSnapshot('r');
      expect(snapshot?.seq).toBe(firstKept - 1);
      expect(snapshot).toEqual(foldOf(log.slice(0, firstKept - 1)));
    });

    it('keeps a snapshot equal to the fold of every trimmed event over many trims', async () => {
      const store = await retainingStore();
      const log = sessionLog('r', 137);
      await appendInTicks(store, log, 3);

      const firstKept = (await store.firstKeptSeq('r')) ?? 0;
      const kept = 137 - firstKept + 1;
      expect(kept).toBeGreaterThanOrEqual(keptAfterTrim);
      expect(kept).toBeLessThanOrEqual(mostKept);
      const snapshot = await store.readSnapshot('r');
      expect(snapshot?.seq).toBe(firstKept - 1);
      expect(snapshot).toEqual(foldOf(log.slice(0, firstKept - 1)));
      expect(await store.readEvents('r', snapshot?.seq ?? 0)).toEqual(log.slice(firstKept - 1));
    });

    it('rebuilds the same state from the snapshot plus the kept events as from the whole log', async () => {
      const store = await retainingStore();
      const log = sessionLog('r', 64);
      await appendInTicks(store, log, 5);
      const snapshot = await store.readSnapshot('r');
      if (!snapshot) throw new Error(`expected a snapshot after 64 events with at most ${mostKept} kept`);
      const rebuilt = applyEvents(createSessionState(snapshot), await store.readEvents('r', snapshot.seq));
      expect(toSnapshot(rebuilt)).toEqual(foldOf(log));
    });

    it('trims each session on its own', async () => {
      const store = await retainingStore();
      await store.createSession(sessionRecord('quiet'));
      await store.appendBatch(batchOf([...sessionLog('r', 30), ...sessionLog('quiet', 5)]));
      expect(await store.firstKeptSeq('r')).toBe(30 - keptAfterTrim + 1);
      expect(await store.firstKeptSeq('quiet')).toBe(1);
      expect(await store.readSnapshot('quiet')).toBeUndefined();
    });

    it(`keeps a log it cannot fold whole${harness.differences.warnsOfUnfoldableLog ? ', with a warning,' : ''} and still accepts appends`, async () => {
      const store = await retainingStore();
      const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
      // Contiguous seqs, but a delta for a step that never started: the reducer refuses it.
      const broken: SessionEvent[] = sessionLog('r', mostKept + 1).map((event, i) =>
        i === 2 ? { type: 'step.delta', sessionId: 'r', seq: event.seq, at: event.at, stepId: 'missing', text: 'x' } : event,
      );
      await store.appendBatch(batchOf(broken));
      // Read first: a store that trims behind its appends has tried by the time it answers a read.
      expect(await store.firstKeptSeq('r')).toBe(1);
      if (harness.differences.warnsOfUnfoldableLog) {
        expect(warn).toHaveBeenCalledWith(expect.stringContaining('session r'), expect.objectContaining({ code: 'INTERTHOUGHT_RETENTION' }));
      } else {
        expect(warn).not.toHaveBeenCalled();
      }
      expect(await store.readSnapshot('r')).toBeUndefined();
      await store.appendBatch(batchOf(sessionLog('r', mostKept + 3).slice(mostKept + 1)));
      expect((await store.getSession('r'))?.lastSeq).toBe(mostKept + 3);
    });

    const { reopen } = harness;
    if (reopen) {
      it('continues trimming from the stored snapshot in a store opened after it (a restart, another node)', async () => {
        const first = await retainingStore();
        const log = sessionLog('r', 90);
        await appendInTicks(first, log.slice(0, 40), 4);
        const second = await reopen(first);
        await appendInTicks(second, log.slice(40), 4);

        const firstKept = (await second.firstKeptSeq('r')) ?? 0;
        expect(firstKept).toBeGreaterThan(1);
        expect(await second.readSnapshot('r')).toEqual(foldOf(log.slice(0, firstKept - 1)));
        expect((await second.getSession('r'))?.lastSeq).toBe(90);
      });
    }
  });
}
