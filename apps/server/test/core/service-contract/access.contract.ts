import { describe, expect, it } from 'vitest';
import { refusal } from '../support/refusal.js';
import type { ServiceTargetFactory } from './service-target.js';
import { completedSession, ends, heldSession, nextFrame, statusReached } from './service-support.js';

/** `accessFacts`, `share`, `unshare` and `sharingKey`. */
export function describeAccess(name: string, factory: ServiceTargetFactory): void {
  describe(`${name}: access facts and share links`, () => {
    it('says a session’s owner from either service, and nothing for an unknown session', async () => {
      const target = await factory.open();
      const { a, b } = ends(target);
      const owned = await a.create({ task: 'Add two and three', ownedBy: { id: 'u1', name: 'Uma' } });
      const unowned = await a.create({ task: 'Add two and three' });
      expect(await b.accessFacts(owned.sessionId)).toEqual({ owner: { id: 'u1', name: 'Uma' }, shares: [] });
      expect(await b.accessFacts(unowned.sessionId)).toMatchObject({ shares: [] });
      expect((await b.accessFacts(unowned.sessionId))?.owner).toBeUndefined();
      expect(await b.accessFacts('no-such-session')).toBeUndefined();
    });

    it('records a link made on the other service, which every service reads and subscribers see, and revokes it', async () => {
      const target = await factory.open();
      const { a, b } = ends(target);
      const { sessionId, creator } = await completedSession(target);
      const share = await b.share({ sessionId, role: 'viewer', by: 'u1', byName: 'Uma' });
      expect(share).toMatchObject({ shareId: expect.any(String), role: 'viewer', by: 'u1', byName: 'Uma', createdAt: expect.any(String) });
      for (const service of [a, b]) expect((await service.accessFacts(sessionId))?.shares).toEqual([share]);
      await nextFrame(creator, 'share.created', (frame) => frame.type === 'share.created');
      expect(creator.ofType('share.created')).toEqual([expect.objectContaining({ sessionId, share })]);

      await a.unshare({ sessionId, shareId: share.shareId, by: 'u1' });
      for (const service of [a, b]) expect((await service.accessFacts(sessionId))?.shares).toEqual([]);
      await nextFrame(creator, 'share.revoked', (frame) => frame.type === 'share.revoked');
      expect(creator.ofType('share.revoked')).toEqual([expect.objectContaining({ sessionId, shareId: share.shareId, by: 'u1' })]);
      await refusal(() => b.unshare({ sessionId, shareId: share.shareId, by: 'u1' }), 'INVALID_STATE');
      await refusal(() => b.share({ sessionId: 'no-such-session', role: 'editor', by: 'u1' }), 'SESSION_NOT_FOUND');
    });

    it('makes a link to a session while it runs, from the service that does not run it, and the run goes on', async () => {
      const target = await factory.open();
      const { a, b } = ends(target);
      const { sessionId, creator, open } = await heldSession(target);
      const share = await b.share({ sessionId, role: 'editor', by: 'u1', expiresAt: '2099-01-01T00:00:00.000Z' });
      expect(share).toMatchObject({ role: 'editor', expiresAt: '2099-01-01T00:00:00.000Z' });
      expect((await a.accessFacts(sessionId))?.shares).toEqual([share]);
      open();
      await statusReached(creator, sessionId, 'completed');
      expect((await b.accessFacts(sessionId))?.shares).toEqual([share]);
    });

    it('signs links with one key, whichever service is asked', async () => {
      const target = await factory.open();
      const keys = await Promise.all(target.services.map((service) => service.sharingKey()));
      expect(keys[0]).toEqual(expect.any(String));
      expect(keys[0]!.length).toBeGreaterThan(0);
      expect(new Set(keys).size).toBe(1);
      expect(await target.services[0]!.sharingKey()).toBe(keys[0]);
    });
  });
}
