import { describe, expect, it } from 'vitest';
import { openPostgresEventStore } from '../../src/store/postgres/postgres-event-store.js';
import { usePostgresServer } from '../support/postgres-scope.js';
import { batchOf, sessionLog, sessionRecord } from './store-fixtures.js';

const postgres = usePostgresServer();

/*
 * A batch across sessions is all or nothing, and two writers racing for the same seqs (two nodes'
 * pools on one database) never both win.
 */
describe('Postgres appends: all or nothing, one winner of a race', () => {
  it('writes nothing of a batch when one of its sessions is not continued', async () => {
    const store = await openPostgresEventStore({ url: await postgres.current.createSchema() });
    try {
      for (const id of ['a', 'b']) await store.createSession(sessionRecord(id));
      const a = sessionLog('a', 6);
      const b = sessionLog('b', 6);
      await store.appendBatch(batchOf([...a.slice(0, 2), ...b.slice(0, 2)]));
      // b's events skip seq 3: the whole batch is refused, a's part too.
      await expect(store.appendBatch(batchOf([...a.slice(2, 4), ...b.slice(3, 5)]))).rejects.toMatchObject({ code: 'SEQ_NOT_CONTIGUOUS' });
      expect((await store.getSession('a'))?.lastSeq).toBe(2);
      expect(await store.readEvents('a', 0)).toEqual(a.slice(0, 2));
      expect(await store.readEvents('b', 0)).toEqual(b.slice(0, 2));
      await store.appendBatch(batchOf([...a.slice(2, 4), ...b.slice(2, 5)]));
      expect(await store.readEvents('b', 0)).toEqual(b.slice(0, 5));
    } finally {
      await store.close();
    }
  });

  it('lets exactly one of two racing writers append the same seqs', async () => {
    const url = await postgres.current.createSchema();
    const [first, second] = await Promise.all([openPostgresEventStore({ url }), openPostgresEventStore({ url })]);
    try {
      await first!.createSession(sessionRecord('s'));
      const log = sessionLog('s', 40);
      for (let start = 0; start < log.length; start += 4) {
        const batch = batchOf(log.slice(start, start + 4));
        const outcomes = await Promise.allSettled([first!.appendBatch(batch), second!.appendBatch(batch)]);
        expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1);
        const refused = outcomes.find((outcome) => outcome.status === 'rejected');
        expect(refused?.reason).toMatchObject({ code: 'SEQ_NOT_CONTIGUOUS' });
      }
      expect(await first!.readEvents('s', 0)).toEqual(log);
      expect((await second!.getSession('s'))?.lastSeq).toBe(40);
    } finally {
      await first!.close();
      await second!.close();
    }
  });
});
