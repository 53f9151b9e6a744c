import { describe, expect, it } from 'vitest';
import type { EventStore } from '../../../src/core/persistence/event-store.js';
import { sessionRecord } from '../store-fixtures.js';
import type { StoreHarness } from './store-harness.js';

/** What a store keeps for users and share links (PROTOCOL.md §21): owners, a list per owner, the sharing key. */
export function describeOwners<S extends EventStore>(name: string, harness: StoreHarness<S>): void {
  describe(`${name}: owners and the sharing key`, () => {
    function owned(id: string, ownerId: string | undefined, at: string) {
      const record = sessionRecord(id, at);
      return ownerId === undefined ? record : { ...record, info: { ...record.info, owner: { id: ownerId, name: `Name of ${ownerId}` } } };
    }

    it("keeps a session's owner and lists one owner's sessions, newest first, paged like the whole list", async () => {
      const store = await harness.open();
      const plan: [string, string | undefined][] = [['s1', 'ada'], ['s2', 'bob'], ['s3', 'ada'], ['s4', undefined], ['s5', 'ada']];
      for (const [index, [id, owner]] of plan.entries()) await store.createSession(owned(id, owner, `2025-01-01T00:00:0${index}.000Z`));
      expect((await store.getSession('s3'))?.info.owner).toEqual({ id: 'ada', name: 'Name of ada' });
      expect((await store.getSession('s4'))?.info.owner).toBeUndefined();
      const first = await store.listSessions({ limit: 2, ownerId: 'ada' });
      expect(first.sessions.map((info) => info.sessionId)).toEqual(['s5', 's3']);
      const rest = await store.listSessions({ limit: 2, ownerId: 'ada', before: first.nextCursor! });
      expect(rest.sessions.map((info) => info.sessionId)).toEqual(['s1']);
      expect(rest.nextCursor).toBeUndefined();
      expect((await store.listSessions({ limit: 10, ownerId: 'bob' })).sessions.map((info) => info.sessionId)).toEqual(['s2']);
      expect((await store.listSessions({ limit: 10, ownerId: 'nobody' })).sessions).toEqual([]);
      // The whole list still holds every session, owned or not.
      expect((await store.listSessions({ limit: 10 })).sessions).toHaveLength(5);
      await store.deleteSession('s3');
      expect((await store.listSessions({ limit: 10, ownerId: 'ada' })).sessions.map((info) => info.sessionId)).toEqual(['s5', 's1']);
    });

    it('makes one sharing key and gives it on every later call', async () => {
      const store = await harness.open();
      const key = await store.sharingKey();
      expect(key.length).toBeGreaterThanOrEqual(32);
      expect(await store.sharingKey()).toBe(key);
    });
  });
}
