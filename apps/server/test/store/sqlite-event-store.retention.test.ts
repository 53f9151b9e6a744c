import { applyEvents, createSessionState, toSnapshot, type SessionEvent } from '@interthought/protocol';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { openSqliteEventStore, type SqliteEventStore } from '../../src/core/sqlite-event-store.js';
import { stateBeforeFirstEvent } from '../../src/core/session-loader.js';
import { makeTempDir, sessionInfo, sessionLog, sessionRecord } from './store-fixtures.js';

const KEEP = 8;
/** KEEP + KEEP / 4: the longest a log may grow before it is trimmed back to KEEP. */
const MAX_KEPT = 10;

let temp: ReturnType<typeof makeTempDir>;
let store: SqliteEventStore;

beforeEach(() => {
  temp = makeTempDir();
  store = openSqliteEventStore(temp.file(), { retainEventsPerSession: KEEP });
  store.createSession(sessionRecord('r'));
});

afterEach(() => {
  store.close();
  temp.cleanup();
  vi.restoreAllMocks();
});

function appendInTicks(target: SqliteEventStore, events: SessionEvent[], perTick: number): void {
  for (let i = 0; i < events.length; i += perTick) target.appendBatch(events.slice(i, i + perTick));
}

/** The state of the whole log, folded from the start. */
function foldOf(events: SessionEvent[]) {
  return toSnapshot(applyEvents(stateBeforeFirstEvent(sessionInfo('r')), events));
}

describe('SqliteEventStore retention', () => {
  it('keeps every event until the log outgrows the limit plus a quarter', () => {
    store.appendBatch(sessionLog('r', MAX_KEPT));
    expect(store.firstKeptSeq('r')).toBe(1);
    expect(store.readSnapshot('r')).toBeUndefined();
  });

  it('trims back to the newest events once the log outgrows it, saving a snapshot at the trim point', () => {
    const log = sessionLog('r', MAX_KEPT + 1);
    store.appendBatch(log);
    expect(store.firstKeptSeq('r')).toBe(MAX_KEPT + 1 - KEEP + 1);
    expect(store.readEvents('r', 0)).toEqual(log.slice(MAX_KEPT + 1 - KEEP));
    expect(store.readSnapshot('r')).toEqual(foldOf(log.slice(0, MAX_KEPT + 1 - KEEP)));
  });

  it('keeps a snapshot equal to the fold of every trimmed event over many trims', () => {
    const log = sessionLog('r', 137);
    appendInTicks(store, log, 3);

    const firstKept = store.firstKeptSeq('r') ?? 0;
    const kept = 137 - firstKept + 1;
    expect(kept).toBeGreaterThanOrEqual(KEEP);
    expect(kept).toBeLessThanOrEqual(MAX_KEPT);
    const snapshot = store.readSnapshot('r');
    expect(snapshot?.seq).toBe(firstKept - 1);
    expect(snapshot).toEqual(foldOf(log.slice(0, firstKept - 1)));
    expect(store.readEvents('r', snapshot?.seq ?? 0)).toEqual(log.slice(firstKept - 1));
  });

  it('rebuilds the same state from the snapshot plus the kept events as from the whole log', () => {
    const log = sessionLog('r', 64);
    appendInTicks(store, log, 5);
    const snapshot = store.readSnapshot('r');
    if (!snapshot) throw new Error('expected a snapshot after 64 events with KEEP 8');
    const rebuilt = applyEvents(createSessionState(snapshot), store.readEvents('r', snapshot.seq));
    expect(toSnapshot(rebuilt)).toEqual(foldOf(log));
  });

  it('continues trimming from the stored snapshot after a reopen', () => {
    const log = sessionLog('r', 90);
    appendInTicks(store, log.slice(0, 40), 4);
    store.close();
    store = openSqliteEventStore(temp.file(), { retainEventsPerSession: KEEP });
    appendInTicks(store, log.slice(40), 4);

    const snapshot = store.readSnapshot('r');
    expect(snapshot).toEqual(foldOf(log.slice(0, (store.firstKeptSeq('r') ?? 0) - 1)));
    expect(store.getSession('r')?.lastSeq).toBe(90);
  });

  it('trims each session on its own', () => {
    store.createSession(sessionRecord('quiet'));
    store.appendBatch([...sessionLog('r', 30), ...sessionLog('quiet', 5)]);
    expect(store.firstKeptSeq('r')).toBe(30 - KEEP + 1);
    expect(store.firstKeptSeq('quiet')).toBe(1);
    expect(store.readSnapshot('quiet')).toBeUndefined();
  });

  it('keeps a log it cannot fold whole, with a warning, and still accepts appends', () => {
    const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    // Contiguous seqs, but a delta for a step that never started: the reducer refuses it.
    const broken: SessionEvent[] = sessionLog('r', MAX_KEPT + 1).map((event, i) =>
      i === 2 ? { type: 'step.delta', sessionId: 'r', seq: event.seq, at: event.at, stepId: 'missing', text: 'x' } : event,
    );
    store.appendBatch(broken);
    expect(warn).toHaveBeenCalledWith(expect.stringContaining('session r'), expect.objectContaining({ code: 'INTERTHOUGHT_RETENTION' }));
    expect(store.firstKeptSeq('r')).toBe(1);
    expect(store.readSnapshot('r')).toBeUndefined();
    store.appendBatch(sessionLog('r', MAX_KEPT + 3).slice(MAX_KEPT + 1));
    expect(store.getSession('r')?.lastSeq).toBe(MAX_KEPT + 3);
  });

  it('refuses a retention limit that is not a positive integer', () => {
    expect(() => openSqliteEventStore(':memory:', { retainEventsPerSession: 0 })).toThrow(expect.objectContaining({ code: 'BAD_OPTIONS' }));
    expect(() => openSqliteEventStore(':memory:', { retainEventsPerSession: 2.5 })).toThrow(/positive integer/);
  });
});
