import type { EventStore } from '../../../src/core/persistence/event-store.js';
import { describe, expect, it } from 'vitest';
import { EventScript, batchOf, sessionInfo, sessionLog, sessionRecord } from '../store-fixtures.js';
import type { StoreHarness } from './store-harness.js';

/** Create, read, update and delete a session's record; and a closed store. */
export function describeSessionRecords<S extends EventStore>(name: string, harness: StoreHarness<S>): void {
  const { differences } = harness;

  describe(`${name}: session records`, () => {
    it('returns a created session as it was recorded, and undefined for an unknown one', async () => {
      const store = await harness.open();
      await store.createSession(sessionRecord('s1'));
      expect(await store.getSession('s1')).toEqual(sessionRecord('s1'));
      expect(await store.getSession('nope')).toBeUndefined();
    });

    it("keeps a fork's origin (forkedFrom) through updates and in the list", async () => {
      const store = await harness.open();
      const forkedFrom = { sessionId: 'source', stepId: 'step-3' };
      const fork = { ...sessionRecord('s1'), info: { ...sessionInfo('s1'), status: 'idle' as const, forkedFrom } };
      await store.createSession(fork);
      expect(await store.getSession('s1')).toEqual(fork);
      await store.updateSession({ ...fork.info, status: 'running', forkedFrom });
      expect((await store.getSession('s1'))?.info).toEqual({ ...fork.info, status: 'running' });
      expect((await store.listSessions({ limit: 5 })).sessions[0]).toMatchObject({ sessionId: 's1', forkedFrom });
      expect((await store.listSessionsByStatus('running'))[0]?.info.forkedFrom).toEqual(forkedFrom);
    });

    it('hands out copies, so callers cannot change what is stored', async () => {
      const store = await harness.open();
      await store.createSession(sessionRecord('s1'));
      const record = (await store.getSession('s1'))!;
      record.info.status = 'failed';
      record.lastSeq = 99;
      expect(await store.getSession('s1')).toEqual(sessionRecord('s1'));
    });

    it(`refuses to create a session id twice with other contents; the same create again is ${differences.identicalCreate}`, async () => {
      const store = await harness.open();
      await store.createSession(sessionRecord('s1'));
      const again = store.createSession(sessionRecord('s1'));
      if (differences.identicalCreate === 'accepted') await expect(again).resolves.toBeUndefined();
      else await harness.expectRefusal(again, { code: 'SESSION_EXISTS', sessionId: 's1' });
      const other = { ...sessionRecord('s1'), options: { tokenDelayMs: 99 } };
      await harness.expectRefusal(store.createSession(other), { code: 'SESSION_EXISTS', sessionId: 's1' });
      expect(await store.getSession('s1')).toEqual(sessionRecord('s1'));
    });

    it('persists status, revision, error and detail changes, and clears them again', async () => {
      const store = await harness.open();
      await store.createSession(sessionRecord('s1'));
      const failed = { ...sessionInfo('s1'), status: 'failed' as const, revision: 3, error: 'model down', detail: 'retrying' };
      await store.updateSession(failed);
      expect((await store.getSession('s1'))?.info).toEqual(failed);
      await store.updateSession({ ...sessionInfo('s1'), status: 'running', revision: 3 });
      expect((await store.getSession('s1'))?.info).toEqual({ ...sessionInfo('s1'), status: 'running', revision: 3 });
    });

    it('refuses to update a session it does not have', async () => {
      const store = await harness.open();
      await harness.expectRefusal(store.updateSession(sessionInfo('ghost')), { code: 'SESSION_NOT_FOUND', sessionId: 'ghost' });
      expect(await store.getSession('ghost')).toBeUndefined();
    });

    it('deletes the session, its events and its snapshot together, from both lists', async () => {
      const store = await harness.open({ retained: true });
      await store.createSession(sessionRecord('gone'));
      await store.createSession(sessionRecord('kept'));
      await store.appendBatch(batchOf(sessionLog('gone', harness.retention.mostKept + 2)));
      await store.appendBatch(batchOf(sessionLog('kept', 1)));
      expect(await store.readSnapshot('gone')).toBeDefined();

      await store.deleteSession('gone');

      expect(await store.getSession('gone')).toBeUndefined();
      expect(await store.readEvents('gone', 0)).toEqual([]);
      expect(await store.readEventFrames('gone', 0)).toEqual([]);
      expect(await store.firstKeptSeq('gone')).toBeUndefined();
      expect(await store.readSnapshot('gone')).toBeUndefined();
      expect((await store.listSessions({ limit: 10 })).sessions.map((info) => info.sessionId)).toEqual(['kept']);
      expect((await store.listSessionsByStatus('running')).map((record) => record.info.sessionId)).toEqual(['kept']);
      expect(await store.readEvents('kept', 0)).toHaveLength(1);
    });

    it('lets a deleted session id start over from seq 1', async () => {
      const store = await harness.open();
      await store.createSession(sessionRecord('s1'));
      await store.appendBatch(batchOf([new EventScript('s1').status('running')]));
      await store.deleteSession('s1');
      await store.createSession(sessionRecord('s1'));
      await store.appendBatch(batchOf([new EventScript('s1').status('running')]));
      expect((await store.getSession('s1'))?.lastSeq).toBe(1);
    });

    it('ignores the deletion of an unknown session', async () => {
      const store = await harness.open();
      await expect(store.deleteSession('never-was')).resolves.toBeUndefined();
    });

    it(`refuses writes once closed (reads are ${differences.readsWhenClosed}), and closes twice without complaint`, async () => {
      const store = await harness.open();
      await store.createSession(sessionRecord('s1'));
      await store.close();
      await expect(store.close()).resolves.toBeUndefined();
      await harness.expectRefusal(store.createSession(sessionRecord('s2')), { code: 'STORE_CLOSED' });
      await harness.expectRefusal(store.appendBatch(batchOf(sessionLog('s1', 1))), { code: 'STORE_CLOSED' });
      const read = store.getSession('s1');
      if (differences.readsWhenClosed === 'refused') await harness.expectRefusal(read, { code: 'STORE_CLOSED' });
      else expect(await read).toEqual(sessionRecord('s1'));
    });
  });
}
