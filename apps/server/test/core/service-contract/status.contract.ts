import { describe, expect, it } from 'vitest';
import { refusal } from '../support/refusal.js';
import type { ServiceTargetFactory } from './service-target.js';
import { completedSession, ends, expectContiguous, heldSession, nextFrame, seqsOf, snapshotOf, statusReached, statusesOf } from './service-support.js';

/** `pause`, `resume`, `cancel`: the requester's `session.status` copy with its request id, and `INVALID_STATE` refusals. */
export function describeStatusChanges(name: string, factory: ServiceTargetFactory): void {
  describe(`${name}: pause, resume and cancel`, () => {
    it('answers pause and resume with the requester’s session.status copy (request id, in place of the plain one); paused holds the run', async () => {
      const target = await factory.open();
      const { b } = ends(target);
      const { sessionId, creator, open } = await heldSession(target);
      const requester = target.peer('requester');
      await b.subscribe(sessionId, { peer: requester }, 0);

      await b.pause(sessionId, { peer: requester, requestId: 'r-pause' });
      await statusReached(requester, sessionId, 'paused');
      await statusReached(creator, sessionId, 'paused');
      expect((await snapshotOf(b, sessionId)).session.status).toBe('paused');
      open();
      await b.resume(sessionId, { peer: requester, requestId: 'r-resume' });
      await statusReached(requester, sessionId, 'completed');
      await statusReached(creator, sessionId, 'completed');

      const statusFrames = requester.events(sessionId).filter((event) => event.type === 'session.status');
      expect(statusFrames.map((event) => [event.status, (event as { requestId?: string }).requestId])).toEqual([
        ['running', undefined],
        ['paused', 'r-pause'],
        ['running', 'r-resume'],
        ['completed', undefined],
      ]);
      expectContiguous(seqsOf(requester, sessionId));
      expect(creator.events(sessionId).filter((event) => 'requestId' in event)).toEqual([]);
      expect(statusesOf(creator, sessionId)).toEqual(['running', 'paused', 'running', 'completed']);
      // Paused means paused: no text of the run streams between `paused` and the resume.
      const log = creator.events(sessionId);
      const paused = log.findIndex((event) => event.type === 'session.status' && event.status === 'paused');
      const resumed = log.findIndex((event, index) => index > paused && event.type === 'session.status');
      expect(log[resumed]).toMatchObject({ status: 'running' });
      expect(log.slice(paused, resumed).filter((event) => event.type === 'step.delta' || event.type === 'step.completed')).toEqual([]);
    });

    it('answers a cancel from a requester that does not follow the session with its copy alone; every subscriber sees cancelled', async () => {
      const target = await factory.open();
      const { a, b } = ends(target);
      const { sessionId, creator } = await heldSession(target);
      const watcher = target.peer('watcher');
      await a.subscribe(sessionId, { peer: watcher }, 0);
      const outsider = target.peer('outsider');
      await b.cancel(sessionId, { peer: outsider, requestId: 'r-cancel' });
      await nextFrame(outsider, 'the cancel answer', (frame) => frame.type === 'session.status');
      await statusReached(creator, sessionId, 'cancelled');
      await statusReached(watcher, sessionId, 'cancelled');
      const cancelled = creator.events(sessionId).at(-1)!;
      expect(outsider.messages).toEqual([{ ...cancelled, requestId: 'r-cancel' }]);
      expect(b.isSubscribed(outsider, sessionId)).toBe(false);
      expect(statusesOf(watcher, sessionId)).toEqual(['running', 'cancelled']);
      expect((await snapshotOf(a, sessionId)).session.status).toBe('cancelled');
    });

    it('refuses what does not apply with INVALID_STATE, sending nothing to the requester', async () => {
      const target = await factory.open();
      const { b } = ends(target);
      const held = await heldSession(target);
      const done = await completedSession(target);
      const requester = target.peer('requester');
      const reply = { peer: requester, requestId: 'r' };
      await refusal(() => b.resume(held.sessionId, reply), 'INVALID_STATE');
      await b.pause(held.sessionId);
      await refusal(() => b.pause(held.sessionId, reply), 'INVALID_STATE');
      for (const request of [b.pause, b.resume, b.cancel]) await refusal(() => request.call(b, done.sessionId, reply), 'INVALID_STATE');
      await b.cancel(held.sessionId);
      await statusReached(held.creator, held.sessionId, 'cancelled');
      await refusal(() => b.cancel(held.sessionId, reply), 'INVALID_STATE');
      await refusal(() => b.resume(held.sessionId, reply), 'INVALID_STATE');
      expect(requester.frames).toEqual([]);
      expect((await snapshotOf(b, done.sessionId)).session.status).toBe('completed');
    });

    it('refuses pause, resume and cancel of an unknown session with SESSION_NOT_FOUND', async () => {
      const target = await factory.open();
      const { b } = ends(target);
      const requester = target.peer('requester');
      for (const request of [b.pause, b.resume, b.cancel]) await refusal(() => request.call(b, 'no-such-session', { peer: requester, requestId: 'r' }), 'SESSION_NOT_FOUND');
      expect(requester.frames).toEqual([]);
    });
  });
}
