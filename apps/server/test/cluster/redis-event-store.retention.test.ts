import { applyEvents, createSessionState, toSnapshot, type SessionEvent } from '@interthought/protocol';
import type { Redis } from 'ioredis';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { RedisEventStore } from '../../src/cluster/redis-event-store.js';
import { DEFAULT_RETAINED_EVENTS } from '../../src/cluster/redis-retention.js';
import { stateBeforeFirstEvent } from '../../src/core/session-loader.js';
import { sessionInfo, sessionLog, sessionRecord } from '../store/store-fixtures.js';
import { batchOf, redisPerFile } from './redis-fixtures.js';

const KEEP = 8;
/** KEEP + KEEP / 4: the longest a log may grow before it is trimmed back to KEEP. */
const MAX_KEPT = 10;

const redis = redisPerFile();

afterEach(() => {
  vi.restoreAllMocks();
});

async function storeWithSession(): Promise<RedisEventStore> {
  const store = await redis.openStore({ retainEventsPerSession: KEEP });
  await store.createSession(sessionRecord('r'));
  return store;
}

async function appendInTicks(store: RedisEventStore, events: SessionEvent[], perTick: number): Promise<void> {
  for (let i = 0; i < events.length; i += perTick) await store.appendBatch(batchOf(events.slice(i, i + perTick)));
}

/** The state of the whole log, folded from the start. */
function foldOf(events: SessionEvent[]) {
  return toSnapshot(applyEvents(stateBeforeFirstEvent(sessionInfo('r')), events));
}

describe('RedisEventStore retention', () => {
  it('keeps every event until the log outgrows the limit plus a quarter', async () => {
    const store = await storeWithSession();
    await store.appendBatch(batchOf(sessionLog('r', MAX_KEPT)));
    expect(await store.firstKeptSeq('r')).toBe(1);
    expect(await store.readSnapshot('r')).toBeUndefined();
  });

  it('trims back to the newest events once the log outgrows it, saving a snapshot at the trim point', async () => {
    const store = await storeWithSession();
    const log = sessionLog('r', MAX_KEPT + 1);
    await store.appendBatch(batchOf(log));
    expect(await store.firstKeptSeq('r')).toBe(MAX_KEPT + 1 - KEEP + 1);
    expect(await store.readEvents('r', 0)).toEqual(log.slice(MAX_KEPT + 1 - KEEP));
    expect(await store.readSnapshot('r')).toEqual(foldOf(log.slice(0, MAX_KEPT + 1 - KEEP)));
  });

  it('keeps a snapshot equal to the fold of every trimmed event over many trims', async () => {
    const store = await storeWithSession();
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
    const store = await storeWithSession();
    const log = sessionLog('r', 64);
    await appendInTicks(store, log, 5);
    const snapshot = await store.readSnapshot('r');
    if (!snapshot) throw new Error('expected a snapshot after 64 events with KEEP 8');
    const rebuilt = applyEvents(createSessionState(snapshot), await store.readEvents('r', snapshot.seq));
    expect(toSnapshot(rebuilt)).toEqual(foldOf(log));
  });

  it('continues trimming from the stored snapshot with another store (another node)', async () => {
    const first = await storeWithSession();
    const log = sessionLog('r', 90);
    await appendInTicks(first, log.slice(0, 40), 4);
    const second = await redis.openStore({ retainEventsPerSession: KEEP });
    await appendInTicks(second, log.slice(40), 4);

    const firstKept = (await second.firstKeptSeq('r')) ?? 0;
    expect(await second.readSnapshot('r')).toEqual(foldOf(log.slice(0, firstKept - 1)));
    expect((await second.getSession('r'))?.lastSeq).toBe(90);
  });

  it('trims each session on its own', async () => {
    const store = await storeWithSession();
    await store.createSession(sessionRecord('quiet'));
    await store.appendBatch(batchOf([...sessionLog('r', 30), ...sessionLog('quiet', 5)]));
    expect(await store.firstKeptSeq('r')).toBe(30 - KEEP + 1);
    expect(await store.firstKeptSeq('quiet')).toBe(1);
    expect(await store.readSnapshot('quiet')).toBeUndefined();
  });

  it('leaves the log alone when another trim moved its start since the snapshot was folded', async () => {
    const store = await storeWithSession();
    const log = sessionLog('r', MAX_KEPT);
    await store.appendBatch(batchOf(log));
    // A trim that read firstSeq 1 loses the race to one that already moved it to 4.
    await redis.admin.hset('it:{r}:meta', 'firstSeq', 4);
    expect(await store.scripts.trim(['it:{r}:meta', 'it:{r}:log', 'it:{r}:snap'], [1, 3, '{}'])).toBe(0);
    expect(await store.readEvents('r', 0)).toEqual(log);
    expect(await store.readSnapshot('r')).toBeUndefined();
  });

  it('keeps a log it cannot fold whole, with a warning, and still accepts appends', async () => {
    const store = await storeWithSession();
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

  it('retains by default, and refuses a limit that is not a positive integer', async () => {
    const client = { defineCommand: () => undefined } as unknown as Redis;
    expect(DEFAULT_RETAINED_EVENTS).toBeGreaterThan(0);
    expect(() => new RedisEventStore(client, { retainEventsPerSession: 0 })).toThrow(/positive integer/);
    expect(() => new RedisEventStore(client, { retainEventsPerSession: 2.5 })).toThrow(/positive integer/);
  });
});
