import type { Step } from '@interthought/protocol';
import { describe, expect, it } from 'vitest';
import { refusal } from '../support/refusal.js';
import type { ServiceTargetFactory } from './service-target.js';
import { chainOf, completedSession, ends, GATED_THOUGHT, heldSession, lastSeqOf, snapshotOf, statusReached, statusesOf } from './service-support.js';

/** `correct`: the answer before the events it caused, later steps invalidated, the run regenerated; typed refusals. */
export function describeCorrections(name: string, factory: ServiceTargetFactory): void {
  describe(`${name}: correct`, () => {
    it('answers correction.accepted before the events it caused, invalidates the later steps and regenerates the run', async () => {
      const target = await factory.open();
      const { a, b } = ends(target);
      const { sessionId, creator } = await completedSession(target);
      const before = chainOf(await snapshotOf(a, sessionId));
      const thought = before[0]!;
      const requester = target.peer('corrector');
      await b.subscribe(sessionId, { peer: requester }, lastSeqOf(creator, sessionId));
      const result = await b.correct({ sessionId, stepId: thought.stepId, content: 'I should add two and four.', by: 'u-fix' }, { peer: requester, requestId: 'r-fix' });
      expect(result).toEqual({ sessionId, stepId: thought.stepId, newStepId: expect.any(String), revision: 1 });
      await statusReached(requester, sessionId, 'completed');

      const [subscribed, accepted, ...caused] = requester.messages;
      expect(subscribed).toMatchObject({ type: 'session.subscribed', sessionId });
      expect(accepted).toEqual({ type: 'correction.accepted', requestId: 'r-fix', ...result });
      expect(caused.every((frame) => typeof frame.seq === 'number')).toBe(true);
      const types = caused.map((frame) => frame.type);
      expect(types.slice(0, 2)).toEqual(['step.corrected', 'steps.invalidated']);
      expect(caused[0]).toMatchObject({ revision: 1, step: { stepId: result.newStepId, correctionOf: thought.stepId, content: 'I should add two and four.' } });
      expect(caused[1]).toMatchObject({ stepIds: before.map((step) => step.stepId), byStepId: result.newStepId, revision: 1 });
      expect(statusesOf(requester, sessionId)).toEqual(['running', 'completed']);

      const after = await snapshotOf(a, sessionId);
      expect(after.session).toMatchObject({ status: 'completed', revision: 1 });
      const chain = chainOf(after);
      expect(chain.map((step) => step.kind)).toEqual(before.map((step) => step.kind));
      expect(chain[0]).toMatchObject({ stepId: result.newStepId, status: 'corrected', correctionOf: thought.stepId, content: 'I should add two and four.' });
      expect(chain[1]?.content).toBe('Plan after "I should add two and four.": call the adder.');
      expect(chain.slice(1).every((step) => !before.some((old) => old.stepId === step.stepId))).toBe(true);
      const stepOf = (id: string): Step | undefined => after.steps.find((step) => step.stepId === id);
      expect(before.map((step) => stepOf(step.stepId)?.status)).toEqual(['invalidated', 'invalidated', 'invalidated', 'invalidated', 'invalidated']);
    });

    it('corrects a step of a running session from the other service: its run is replaced by one after the correction', async () => {
      const target = await factory.open();
      const { a, b } = ends(target);
      const { sessionId, creator, open } = await heldSession(target);
      const [thought] = chainOf(await snapshotOf(b, sessionId));
      const requester = target.peer('corrector');
      await b.subscribe(sessionId, { peer: requester }, 0);
      const result = await b.correct({ sessionId, stepId: thought!.stepId, content: 'Think again.' }, { peer: requester, requestId: 'r-fix' });
      open();
      await statusReached(creator, sessionId, 'completed');
      await statusReached(requester, sessionId, 'completed');
      // The answer precedes the events the correction caused, though the requester follows the session.
      const types = requester.messages.map((frame) => frame.type);
      expect(requester.ofType('correction.accepted')).toEqual([{ type: 'correction.accepted', requestId: 'r-fix', ...result }]);
      expect(types.indexOf('correction.accepted')).toBeLessThan(types.indexOf('step.corrected'));
      expect(requester.events(sessionId)).toEqual(creator.events(sessionId));
      const chain = chainOf(await snapshotOf(a, sessionId));
      expect(chain.map((step) => [step.kind, step.content])).toEqual([
        ['thought', 'Think again.'],
        ['final_answer', 'Done after: Think again.'],
      ]);
      expect(chain.some((step) => step.content === GATED_THOUGHT)).toBe(false);
      // One run to the end: the answer the aborted run would have given never came.
      expect(creator.events(sessionId).filter((event) => event.type === 'step.started' && event.step.kind === 'final_answer')).toHaveLength(1);
    });

    it('refuses with typed codes and changes nothing: unknown session or step, bad content, an invalidated step, a stale revision', async () => {
      const target = await factory.open();
      const { a, b } = ends(target);
      const { sessionId, creator } = await completedSession(target);
      const [thought, action] = chainOf(await snapshotOf(a, sessionId));
      await refusal(() => b.correct({ sessionId: 'no-such-session', stepId: thought!.stepId, content: 'x' }), 'SESSION_NOT_FOUND');
      await refusal(() => b.correct({ sessionId, stepId: 'no-such-step', content: 'x' }), 'STEP_NOT_FOUND');
      await refusal(() => b.correct({ sessionId, stepId: thought!.stepId, content: '' }), 'BAD_CORRECTION');
      const requester = target.peer('corrector');
      await refusal(() => b.correct({ sessionId, stepId: thought!.stepId, content: '' }, { peer: requester, requestId: 'r' }), 'BAD_CORRECTION');
      expect(requester.frames).toEqual([]);
      expect((await snapshotOf(b, sessionId)).session.revision).toBe(0);

      await b.correct({ sessionId, stepId: thought!.stepId, content: 'I should add two and four.' });
      await statusReached(creator, sessionId, 'completed', 2);
      await refusal(() => b.correct({ sessionId, stepId: action!.stepId, content: 'x' }), 'STEP_INVALIDATED');
      await refusal(() => b.correct({ sessionId, stepId: action!.stepId, content: 'x', baseRevision: 0 }), 'STALE_REVISION');
      expect((await snapshotOf(a, sessionId)).session).toMatchObject({ status: 'completed', revision: 1 });
    });

    it('refuses a correction of a cancelled session with SESSION_CANCELLED', async () => {
      const target = await factory.open();
      const { a, b } = ends(target);
      const { sessionId, creator } = await heldSession(target);
      const [thought] = chainOf(await snapshotOf(a, sessionId));
      await a.cancel(sessionId);
      await statusReached(creator, sessionId, 'cancelled');
      await refusal(() => b.correct({ sessionId, stepId: thought!.stepId, content: 'x' }), 'SESSION_CANCELLED');
      expect((await snapshotOf(b, sessionId)).session).toMatchObject({ status: 'cancelled', revision: 0 });
    });
  });
}
