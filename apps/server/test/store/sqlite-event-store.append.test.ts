import type { SessionEvent } from '@interthought/protocol';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSqliteEventStore, type SqliteEventStore } from '../../src/store/sqlite-event-store.js';
import { EventScript, sessionRecord } from './store-fixtures.js';

// The appends every store shares are held to the contract (sqlite-event-store.contract.test.ts);
// this file keeps what the SQLite store does alone.

let store: SqliteEventStore;

beforeEach(async () => {
  store = openSqliteEventStore(':memory:');
  await store.createSession(sessionRecord('s1'));
});

afterEach(async () => {
  await store.close();
});

describe('SqliteEventStore appendBatch', () => {
  it('serialises events given without frames itself, and refuses one that cannot be serialised, writing nothing', async () => {
    const a = new EventScript('s1');
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    const started = a.started('observation');
    const bad = { ...a.completed('done'), result: cyclic } as SessionEvent;
    // Given no frames, the store serialises each event itself (batchOf's JSON.stringify would throw first).
    await expect(store.appendBatch({ events: [started, bad], frames: [] })).rejects.toMatchObject({ code: 'BAD_EVENT' });
    expect(await store.readEvents('s1', 0)).toEqual([]);
    await store.appendBatch({ events: [started], frames: [] });
    expect(await store.readEventFrames('s1', 0)).toEqual([JSON.stringify(started)]);
  });
});
