import { describe, expect, it } from 'vitest';
import { refusal } from '../support/refusal.js';
import type { ServiceTargetFactory } from './service-target.js';
import { chainOf, createdInfo, ends, expectContiguous, foldInto, seqsOf, snapshotOf, statusReached, statusesOf } from './service-support.js';

/** `create`: the answer before any event, the subscription from seq 0, and the run to `completed`. */
export function describeCreation(name: string, factory: ServiceTargetFactory): void {
  describe(`${name}: create`, () => {
    it('answers session.created with the request id before any event, and streams the run from seq 1 to completed', async () => {
      const target = await factory.open();
      const { a } = ends(target);
      const requester = target.peer('creator');
      const info = await a.create({ task: 'Add two and three' }, { peer: requester, requestId: 'r-create' });
      expect(info).toMatchObject({ task: 'Add two and three', agent: 'script', status: 'running', revision: 0 });
      await statusReached(requester, info.sessionId, 'completed');

      // PROTOCOL.md §9.1: `session.created`, `session.subscribed` (afterSeq 0, no request id), then every event from seq 1.
      const [created, subscribed, ...events] = requester.messages;
      expect(created).toEqual({ type: 'session.created', requestId: 'r-create', session: info });
      expect(subscribed).toMatchObject({ type: 'session.subscribed', sessionId: info.sessionId, afterSeq: 0 });
      expect(subscribed).not.toHaveProperty('requestId');
      expect(events.filter((frame) => typeof frame.seq !== 'number' || frame.sessionId !== info.sessionId || frame.requestId !== undefined)).toEqual([]);
      expectContiguous(seqsOf(requester, info.sessionId));
      expect(statusesOf(requester, info.sessionId)).toEqual(['running', 'completed']);
      expect(a.isSubscribed(requester, info.sessionId)).toBe(true);
      expect(a.subscriptionCount(requester)).toBe(1);
    });

    it('runs to completed, and the other service sees the finished chain the events fold to', async () => {
      const target = await factory.open();
      const { a, b } = ends(target);
      const creator = target.peer('creator');
      const { sessionId } = await a.create({ task: 'Add two and three' }, { peer: creator });
      await statusReached(creator, sessionId, 'completed');

      const seen = await snapshotOf(b, sessionId);
      expect(seen.session).toMatchObject({ sessionId, status: 'completed', revision: 0 });
      expect(chainOf(seen).map((step) => [step.kind, step.status])).toEqual([
        ['thought', 'completed'],
        ['action', 'completed'],
        ['tool_call', 'completed'],
        ['observation', 'completed'],
        ['final_answer', 'completed'],
      ]);
      expect(chainOf(seen).at(-1)?.content).toContain('I should add two and three.');
      expect(seen).toEqual(foldInto(creator.events(sessionId), createdInfo(creator, sessionId)));
    });

    it('creates without a requester: nobody is subscribed and the run still completes', async () => {
      const target = await factory.open();
      const { a, b } = ends(target);
      const info = await a.create({ task: 'Add two and three' });
      const watcher = target.peer('watcher');
      await b.subscribe(info.sessionId, { peer: watcher }, 0);
      await statusReached(watcher, info.sessionId, 'completed');
      expectContiguous(seqsOf(watcher, info.sessionId));
      expect((await snapshotOf(a, info.sessionId)).session.status).toBe('completed');
    });

    it('refuses an unknown agent with AGENT_NOT_FOUND and an empty task with BAD_FRAME, creating and sending nothing', async () => {
      const target = await factory.open();
      const { b } = ends(target);
      const requester = target.peer('creator');
      await refusal(() => b.create({ task: 'Add two and three', agent: 'nobody' }, { peer: requester, requestId: 'r1' }), 'AGENT_NOT_FOUND');
      await refusal(() => b.create({ task: '' }, { peer: requester, requestId: 'r2' }), 'BAD_FRAME');
      expect(requester.frames).toEqual([]);
      expect(b.subscriptionCount(requester)).toBe(0);
      expect((await b.list({ limit: 10 })).sessions).toEqual([]);
    });
  });
}
