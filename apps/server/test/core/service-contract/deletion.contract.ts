import { describe, expect, it } from 'vitest';
import { refusal } from '../support/refusal.js';
import type { ServiceTargetFactory } from './service-target.js';
import { completedSession, ends, heldSession, nextFrame, seqsOf } from './service-support.js';

/** `delete`: `session.deleted` last to every subscriber and the requester, then `SESSION_NOT_FOUND`. */
export function describeDeletion(name: string, factory: ServiceTargetFactory): void {
  describe(`${name}: delete`, () => {
    it('ends every subscriber with session.deleted at the last seq + 1, answers the requester with its request id, and tells the lists', async () => {
      const target = await factory.open();
      const { a, b } = ends(target);
      const { sessionId, creator } = await heldSession(target);
      const watcher = target.peer('watcher');
      await b.subscribe(sessionId, { peer: watcher });
      const lists = [target.peer('list-a'), target.peer('list-b')];
      await a.watchList({ peer: lists[0]! }, 10);
      await b.watchList({ peer: lists[1]! }, 10);
      const requester = target.peer('requester');

      const deleted = await b.delete(sessionId, { peer: requester, requestId: 'r-del' });
      expect(deleted).toMatchObject({ type: 'session.deleted', sessionId });
      expect(requester.messages).toEqual([{ ...deleted, requestId: 'r-del' }]);
      for (const peer of [creator, watcher]) {
        await nextFrame(peer, 'session.deleted', (frame) => frame.type === 'session.deleted');
        expect(peer.messages.at(-1)).toEqual(deleted);
      }
      // Its seq follows the last event anyone got of the session.
      expect(deleted.seq).toBe(seqsOf(creator, sessionId).at(-2)! + 1);
      for (const list of lists) await nextFrame(list, 'sessions.removed', (frame) => frame.type === 'sessions.removed' && frame.sessionId === sessionId);
    });

    it('answers a requester that follows the session with its copy alone, in place of the plain one', async () => {
      const target = await factory.open();
      const { b } = ends(target);
      const { sessionId, creator } = await heldSession(target);
      const requester = target.peer('requester');
      await b.subscribe(sessionId, { peer: requester }, 0);
      const deleted = await b.delete(sessionId, { peer: requester, requestId: 'r-del' });
      await nextFrame(creator, 'session.deleted', (frame) => frame.type === 'session.deleted');
      await nextFrame(requester, 'session.deleted', (frame) => frame.type === 'session.deleted');
      // Whatever else is still on its way to it, a second copy must not come: the others got theirs.
      const control = target.peer('control');
      await refusal(() => b.subscribe(sessionId, { peer: control }, 0), 'SESSION_NOT_FOUND');
      expect(requester.ofType('session.deleted')).toEqual([{ ...deleted, requestId: 'r-del' }]);
      expect(requester.messages.at(-1)).toEqual({ ...deleted, requestId: 'r-del' });
      expect(b.isSubscribed(requester, sessionId)).toBe(false);
    });

    it('refuses every later request on the session on every service with SESSION_NOT_FOUND', async () => {
      const target = await factory.open();
      const { a, b } = ends(target);
      const { sessionId, creator } = await completedSession(target);
      await a.delete(sessionId);
      for (const service of [a, b]) {
        const peer = target.peer('late');
        expect(await service.snapshot(sessionId)).toBeUndefined();
        expect(await service.accessFacts(sessionId)).toBeUndefined();
        await refusal(() => service.subscribe(sessionId, { peer }), 'SESSION_NOT_FOUND');
        await refusal(() => service.subscribe(sessionId, { peer }, 0), 'SESSION_NOT_FOUND');
        await refusal(() => service.pause(sessionId, { peer }), 'SESSION_NOT_FOUND');
        await refusal(() => service.message({ sessionId, text: 'Hello' }), 'SESSION_NOT_FOUND');
        await refusal(() => service.exportSession(sessionId), 'SESSION_NOT_FOUND');
        await refusal(() => service.delete(sessionId, { peer }), 'SESSION_NOT_FOUND');
        expect(peer.frames).toEqual([]);
        expect((await service.list({ limit: 10 })).sessions).toEqual([]);
      }
      expect(a.isSubscribed(creator, sessionId)).toBe(false);
      await refusal(() => b.delete('no-such-session'), 'SESSION_NOT_FOUND');
    });
  });
}
