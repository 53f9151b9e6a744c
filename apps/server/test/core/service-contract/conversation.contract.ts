import type { SessionInfo } from '@interthought/protocol';
import { describe, expect, it } from 'vitest';
import { refusal } from '../support/refusal.js';
import type { SessionService } from '../../../src/core/session-service.js';
import type { ServiceTargetFactory } from './service-target.js';
import { chainOf, completedSession, ends, eventually, expectContiguous, GATED_THOUGHT, heldSession, lastSeqOf, nextFrame, seqsOf, snapshotOf, statusReached, statusesOf } from './service-support.js';

/** Wait until the fork's copied steps are there. */
async function eventuallyCopied(service: SessionService, sessionId: string): Promise<void> {
  await eventually(async () => ((await service.snapshot(sessionId))?.chain.length ?? 0) > 0, `the copied steps of ${sessionId}`);
}

/** `message` (a new turn of a finished session, or queued while it runs) and `fork`. */
export function describeConversation(name: string, factory: ServiceTargetFactory): void {
  describe(`${name}: message`, () => {
    it('a message to a finished session answers message.accepted first, goes on the chain and starts a new turn', async () => {
      const target = await factory.open();
      const { a, b } = ends(target);
      const { sessionId, creator, open } = await heldSession(target);
      open();
      await statusReached(creator, sessionId, 'completed');
      const requester = target.peer('asker');
      await b.subscribe(sessionId, { peer: requester }, lastSeqOf(creator, sessionId));
      const result = await b.message({ sessionId, text: 'And then?', by: 'u-ask' }, { peer: requester, requestId: 'r-msg' });
      expect(result).toEqual({ sessionId, stepId: expect.any(String), queued: false });
      await statusReached(requester, sessionId, 'completed');

      expect(requester.messages[1]).toEqual({ type: 'message.accepted', requestId: 'r-msg', ...result });
      expect(requester.messages.slice(2).every((frame) => typeof frame.seq === 'number')).toBe(true);
      expect(statusesOf(requester, sessionId)).toEqual(['running', 'completed']);
      const chain = chainOf(await snapshotOf(a, sessionId));
      expect(chain.map((step) => step.kind)).toEqual(['thought', 'final_answer', 'user_message', 'thought', 'final_answer']);
      expect(chain[2]).toMatchObject({ stepId: result.stepId, content: 'And then?' });
    });

    it('a queued message while the session runs answers queued: true, and goes on the chain when the turn ends', async () => {
      const target = await factory.open();
      const { a, b } = ends(target);
      const { sessionId, creator, open } = await heldSession(target);
      const requester = target.peer('asker');
      await b.subscribe(sessionId, { peer: requester }, 0);
      const result = await b.message({ sessionId, text: 'Also this.', mode: 'queue' }, { peer: requester, requestId: 'r-q' });
      expect(result).toEqual({ sessionId, stepId: expect.any(String), queued: true });
      await nextFrame(creator, 'message.queued', (frame) => frame.type === 'message.queued');
      await nextFrame(requester, 'message.queued', (frame) => frame.type === 'message.queued');
      // The answer precedes the event the message caused.
      const types = requester.messages.map((frame) => frame.type);
      expect(requester.ofType('message.accepted')).toEqual([{ type: 'message.accepted', requestId: 'r-q', ...result }]);
      expect(types.indexOf('message.accepted')).toBeLessThan(types.indexOf('message.queued'));
      expect(chainOf(await snapshotOf(a, sessionId)).map((step) => step.kind)).toEqual(['thought']);
      open();
      await statusReached(creator, sessionId, 'completed');
      const chain = chainOf(await snapshotOf(b, sessionId));
      expect(chain.map((step) => step.kind)).toEqual(['thought', 'final_answer', 'user_message', 'thought', 'final_answer']);
      expect(chain[2]).toMatchObject({ stepId: result.stepId, content: 'Also this.' });
      expect((await snapshotOf(b, sessionId)).queued ?? []).toEqual([]);
    });

    it('refuses a message to an unknown session with SESSION_NOT_FOUND and an empty one with BAD_FRAME', async () => {
      const target = await factory.open();
      const { b } = ends(target);
      const { sessionId } = await completedSession(target);
      await refusal(() => b.message({ sessionId: 'no-such-session', text: 'Hello' }), 'SESSION_NOT_FOUND');
      await refusal(() => b.message({ sessionId, text: '' }), 'BAD_FRAME');
      expect((await snapshotOf(b, sessionId)).session.status).toBe('completed');
    });
  });

  describe(`${name}: fork`, () => {
    it('forks at a step: idle, forkedFrom, the path copied, the requester answered first and subscribed from seq 0', async () => {
      const target = await factory.open();
      const { a, b } = ends(target);
      const { sessionId } = await completedSession(target);
      const source = chainOf(await snapshotOf(a, sessionId));
      const at = source[2]!;
      const requester = target.peer('forker');
      const info = await b.fork({ sessionId, stepId: at.stepId }, { peer: requester, requestId: 'r-fork' });
      expect(info).toMatchObject({ status: 'idle', task: 'Add two and three', agent: 'script', forkedFrom: { sessionId, stepId: at.stepId } });
      expect(info.sessionId).not.toBe(sessionId);
      await nextFrame(requester, 'steps.copied', (frame) => frame.type === 'steps.copied');

      const [created, subscribed] = requester.messages;
      expect(created).toEqual({ type: 'session.created', requestId: 'r-fork', session: info });
      expect(subscribed).toMatchObject({ type: 'session.subscribed', sessionId: info.sessionId, afterSeq: 0 });
      expectContiguous(seqsOf(requester, info.sessionId));
      expect(b.isSubscribed(requester, info.sessionId)).toBe(true);

      const fork = await snapshotOf(a, info.sessionId);
      expect(fork.session).toMatchObject({ status: 'idle', forkedFrom: { sessionId, stepId: at.stepId } });
      const copied = chainOf(fork);
      expect(copied.map((step) => [step.kind, step.content])).toEqual(source.slice(0, 3).map((step) => [step.kind, step.content]));
      expect(copied.every((step) => !source.some((original) => original.stepId === step.stepId))).toBe(true);
      expect((await snapshotOf(b, sessionId)).session).toMatchObject({ status: 'completed', revision: 0 });
      expect(chainOf(await snapshotOf(b, sessionId))).toEqual(source);
    });

    it('a message to a fork made on the other service starts its first run there from the copied chain', async () => {
      const target = await factory.open();
      const { a, b } = ends(target);
      const { sessionId, creator, open } = await heldSession(target);
      open();
      await statusReached(creator, sessionId, 'completed');
      const [, answer] = chainOf(await snapshotOf(a, sessionId));
      const info: SessionInfo = await b.fork({ sessionId, stepId: answer!.stepId });
      const watcher = target.peer('watcher');
      await a.subscribe(info.sessionId, { peer: watcher }, 0);
      await a.message({ sessionId: info.sessionId, text: 'Go on.' });
      await statusReached(watcher, info.sessionId, 'completed');
      expect(statusesOf(watcher, info.sessionId)).toEqual(['idle', 'running', 'completed']);
      expect(chainOf(await snapshotOf(b, info.sessionId)).map((step) => step.content)).toEqual([
        GATED_THOUGHT,
        `Done after: ${GATED_THOUGHT}`,
        'Go on.',
        GATED_THOUGHT,
        `Done after: ${GATED_THOUGHT} | Done after: ${GATED_THOUGHT} | Go on. | ${GATED_THOUGHT}`,
      ]);
    });

    it('forks a running session, from the other service, at a step it completed; the source runs on', async () => {
      const target = await factory.open();
      const { a, b } = ends(target);
      const { sessionId, creator, open } = await heldSession(target);
      const [thought] = chainOf(await snapshotOf(a, sessionId));
      const info = await b.fork({ sessionId, stepId: thought!.stepId });
      expect(info).toMatchObject({ status: 'idle', forkedFrom: { sessionId, stepId: thought!.stepId } });
      await eventuallyCopied(b, info.sessionId);
      expect(chainOf(await snapshotOf(a, info.sessionId)).map((step) => step.content)).toEqual([GATED_THOUGHT]);
      open();
      await statusReached(creator, sessionId, 'completed');
      expect((await snapshotOf(b, info.sessionId)).session.status).toBe('idle');
    });

    it('refuses a fork of an unknown session with SESSION_NOT_FOUND and of an unknown step with STEP_NOT_FOUND', async () => {
      const target = await factory.open();
      const { b } = ends(target);
      const { sessionId } = await completedSession(target);
      const requester = target.peer('forker');
      await refusal(() => b.fork({ sessionId: 'no-such-session', stepId: 'x' }, { peer: requester, requestId: 'r' }), 'SESSION_NOT_FOUND');
      await refusal(() => b.fork({ sessionId, stepId: 'no-such-step' }, { peer: requester, requestId: 'r' }), 'STEP_NOT_FOUND');
      expect(requester.frames).toEqual([]);
      expect((await b.list({ limit: 10 })).sessions.map((session) => session.sessionId)).toEqual([sessionId]);
    });
  });
}
