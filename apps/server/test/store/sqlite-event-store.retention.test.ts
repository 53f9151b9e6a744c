import { applyEvents, createSessionState, toSnapshot, type SessionEvent } from '@interthought/protocol';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { openSqliteEventStore, type SqliteEventStore } from '../../src/store/sqlite-event-store.js';
import { stateBeforeFirstEvent } from '../../src/core/session-loader.js';
import { batchOf, makeTempDir, sessionInfo, sessionLog, sessionRecord } from './store-fixtures.js';

const KEEP = 8;
/** KEEP + KEEP / 4: the longest a log may grow before it is trimmed back to KEEP. */
const MAX_KEPT = 10;

let temp: ReturnType<typeof makeTempDir>;
let store: SqliteEventStore;

beforeEach(async () => {
  temp = makeTempDir();
  store = openSqliteEventStore(temp.file(), { retainEventsPerSession: KEEP });
  await store.createSession(sessionRecord('r'));
});

afterEach(async () => {
  await store.close();
  temp.cleanup();
  vi.restoreAllMocks();
});

async function appendInTicks(target: SqliteEventStore, events: SessionEvent[], perTick: number): Promise<void> {
  for (let i = 0; i < events.length; i += perTick) await target.appendBatch(batchOf(events.slice(i, i + perTick)));
}

/** The state of the whole log, folded from the start. */
function foldOf(events: SessionEvent[]) {
  return toSnapshot(applyEvents(stateBeforeFirstEvent(sessionInfo('r')), events));
}

describe('SqliteEventStore retention', () => {
  it('keeps every event until the log outgrows the limit plus a quarter', async () => {
    await store.appendBatch(batchOf(sessionLog('r', MAX_KEPT)));
    expect(await store.firstKeptSeq('r')).toBe(1);
    expect(await store.readSnapshot('r')).toBeUndefined();
  });

  it('trims back to the newest events once the log outgrows it, saving a snapshot at the trim point', async () => {
    const log = sessionLog('r', MAX_KEPT + 1);
    await store.appendBatch(batchOf(log));
    expect(await store.firstKeptSeq('r')).toBe(MAX_KEPT + 1 - KEEP + 1);
    expect(await store.readEvents('r', 0)).toEqual(log.slice(MAX_KEPT + 1 - KEEP));
    expect(await store.readSnapshot('r')).toEqual(foldOf(log.slice(0, MAX_KEPT + 1 - KEEP)));
  });

  it('keeps a snapshot equal to the fold of every trimmed event over many trims', async () => {
    const log = sessionLog('r', 137);
    await appendInTicks(store, log, 3);

    const firstKept = (await store.firstKeptSeq('r')) ?? 0;
    const kept = 137 - firstKept + 1;
    expect(kept).toBeGreaterThanOrEqual(KEEP);
    expect(kept).toBeLessThanOrEqual(MAX_KEPT);
    const snapshot = await store.readSnapshot('r');
    expect(snapshot?.seq).toBe(firstKept - 1);
    expect(snapshot).toEqual(foldOf(log.slice(0, firstKept - 1)));
    expect(await store.readEvents('r', snapshot?.seq ?? 0)).toEqual(log.slice(firstKept - 1));
  });

  it('rebuilds the same state from the snapshot plus the kept events as from the whole log', async () => {
    const log = sessionLog('r', 64);
    await appendInTicks(store, log, 5);
    const snapshot = await store.readSnapshot('r');
    if (!snapshot) throw new Error('expected a snapshot after 64 events with KEEP 8');
    const rebuilt = applyEvents(createSessionState(snapshot), await store.readEvents('r', snapshot.seq));
    expect(toSnapshot(rebuilt)).toEqual(foldOf(log));
  });

  it('continues trimming from the stored snapshot after a reopen', async () => {
    const log = sessionLog('r', 90);
    await appendInTicks(store, log.slice(0, 40), 4);
    await store.close();
    store = openSqliteEventStore(temp.file(), { retainEventsPerSession: KEEP });
    await appendInTicks(store, log.slice(40), 4);

    const snapshot = await store.readSnapshot('r');
    expect(snapshot).toEqual(foldOf(log.slice(0, ((await store.firstKeptSeq('r')) ?? 0) - 1)));
    expect((await store.getSession('r'))?.lastSeq).toBe(90);
  });

  it('trims each session on its own', async () => {
    await store.createSession(sessionRecord('quiet'));
    await store.appendBatch(batchOf([...sessionLog('r', 30), ...sessionLog('quiet', 5)]));
    expect(await store.firstKeptSeq('r')).toBe(30 - KEEP + 1);
    expect(await store.firstKeptSeq('quiet')).toBe(1);
    expect(await store.readSnapshot('quiet')).toBeUndefined();
  });

  it('keeps a log it cannot fold whole, with a warning, and still accepts appends', async () => {
    const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    // Contiguous seqs, but a delta for a step that never started: the reducer refuses it.
    const broken: SessionEvent[] = sessionLog('r', MAX_KEPT + 1).map((event, i) =>
      i === 2 ? { type: 'step.delta', sessionId: 'r', seq: event.seq, at: event.at, stepId: 'missing', text: 'x' } : event,
    );
    await store.appendBatch(batchOf(broken));
    expect(warn).toHaveBeenCalledWith(expect.stringContaining('session r'), expect.objectContaining({ code: 'INTERTHOUGHT_RETENTION' }));
    expect(await store.firstKeptSeq('r')).toBe(1);
    expect(await store.readSnapshot('r')).toBeUndefined();
    await store.appendBatch(batchOf(sessionLog('r', MAX_KEPT + 3).slice(MAX_KEPT + 1)));
    expect((await store.getSession('r'))?.lastSeq).toBe(MAX_KEPT + 3);
  });

  it('refuses a retention limit that is not a positive integer', () => {
    expect(() => openSqliteEventStore(':memory:', { retainEventsPerSession: 0 })).toThrow(expect.objectContaining({ code: 'BAD_OPTIONS' }));
    expect(() => openSqliteEventStore(':memory:', { retainEventsPerSession: 2.5 })).toThrow(/positive integer/);
  });
});
