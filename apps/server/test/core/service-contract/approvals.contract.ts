import { describe, expect, it } from 'vitest';
import { refusal } from '../support/refusal.js';
import type { ServiceTarget, ServiceTargetFactory } from './service-target.js';
import { chainOf, ends, nextFrame, snapshotOf, statusReached, statusesOf } from './service-support.js';

/** A demo session created on `a` whose calculator call waits for approval (`options.approve: 'all'`). */
async function waitingCall(target: ServiceTarget) {
  const { a } = ends(target);
  const creator = target.peer('creator');
  const { sessionId } = await a.create({ task: 'What is 12 * 7?', agent: 'demo', options: { approve: 'all', tokenDelayMs: 0 } }, { peer: creator });
  await statusReached(creator, sessionId, 'waiting');
  const asked = await nextFrame(creator, 'approval.requested', (frame) => frame.type === 'approval.requested');
  return { sessionId, creator, stepId: asked.stepId as string };
}

/** `approve` / `reject` of a tool call that waits for approval. */
export function describeApprovals(name: string, factory: ServiceTargetFactory): void {
  describe(`${name}: approve and reject`, () => {
    it('waits before the tool runs; approving from the other service answers approval.resolved with the request id and runs the call to the answer', async () => {
      const target = await factory.open();
      const { b } = ends(target);
      const { sessionId, creator, stepId } = await waitingCall(target);
      const waiting = await snapshotOf(b, sessionId);
      expect(waiting.session).toMatchObject({ status: 'waiting' });
      expect(chainOf(waiting).at(-1)).toMatchObject({ stepId, kind: 'tool_call', tool: 'calculator', approval: { state: 'pending' } });

      const approver = target.peer('approver');
      await b.subscribe(sessionId, { peer: approver });
      await b.approve({ sessionId, stepId, by: 'u-approver' }, { peer: approver, requestId: 'r-ok' });
      await statusReached(creator, sessionId, 'completed');
      await statusReached(approver, sessionId, 'completed');
      // The requester's copy replaces the plain one: it gets the decision once, with its request id.
      const resolved = approver.ofType('approval.resolved');
      expect(resolved).toEqual([expect.objectContaining({ requestId: 'r-ok', sessionId, stepId, decision: 'approved', by: 'u-approver' })]);
      expect(creator.ofType('approval.resolved')).toEqual([expect.not.objectContaining({ requestId: expect.anything() })]);
      expect(statusesOf(creator, sessionId)).toEqual(['running', 'waiting', 'running', 'completed']);

      const chain = chainOf(await snapshotOf(b, sessionId));
      expect(chain.map((step) => step.kind).slice(-3)).toEqual(['tool_call', 'observation', 'final_answer']);
      expect(chain.at(-1)?.content).toContain('84');
      expect(chain.find((step) => step.stepId === stepId)?.approval).toMatchObject({ state: 'approved', by: 'u-approver' });
    });

    it('rejecting from the other service never runs the tool: the refusal is an observation with the reason, and the run finishes', async () => {
      const target = await factory.open();
      const { a, b } = ends(target);
      const { sessionId, creator, stepId } = await waitingCall(target);
      const rejecter = target.peer('rejecter');
      await b.reject({ sessionId, stepId, by: 'u-no', reason: 'Use a rounded figure.' }, { peer: rejecter, requestId: 'r-no' });
      await statusReached(creator, sessionId, 'completed');
      expect(rejecter.messages[0]).toMatchObject({ type: 'approval.resolved', requestId: 'r-no', stepId, decision: 'rejected', by: 'u-no' });
      const chain = chainOf(await snapshotOf(a, sessionId));
      expect(chain.at(-2)).toMatchObject({ kind: 'observation', tool: 'calculator', result: { refused: true, by: 'u-no', reason: 'Use a rounded figure.' } });
      expect(chain.at(-1)?.kind).toBe('final_answer');
      expect(chain.at(-1)?.content).not.toContain('84');
      expect(chain.find((step) => step.stepId === stepId)?.approval).toMatchObject({ state: 'rejected', by: 'u-no', reason: 'Use a rounded figure.' });
    });

    it('refuses decisions with typed codes: a decided call, a step that is no tool call, an unknown step or session', async () => {
      const target = await factory.open();
      const { a, b } = ends(target);
      const { sessionId, creator, stepId } = await waitingCall(target);
      const [first] = chainOf(await snapshotOf(a, sessionId));
      await refusal(() => b.approve({ sessionId, stepId: first!.stepId }), 'APPROVAL_NOT_PENDING');
      await refusal(() => b.approve({ sessionId, stepId: 'no-such-step' }), 'STEP_NOT_FOUND');
      await refusal(() => b.reject({ sessionId: 'no-such-session', stepId }), 'SESSION_NOT_FOUND');
      await refusal(() => b.message({ sessionId, text: 'Hurry up.' }), 'INVALID_STATE');
      await refusal(() => b.pause(sessionId), 'INVALID_STATE');
      expect((await snapshotOf(b, sessionId)).session.status).toBe('waiting');
      await b.approve({ sessionId, stepId, by: 'u-first' });
      await statusReached(creator, sessionId, 'completed');
      await refusal(() => b.reject({ sessionId, stepId, by: 'u-second' }), 'APPROVAL_NOT_PENDING');
      await refusal(() => a.approve({ sessionId, stepId, by: 'u-second' }), 'APPROVAL_NOT_PENDING');
      expect(chainOf(await snapshotOf(a, sessionId)).find((step) => step.stepId === stepId)?.approval).toMatchObject({ state: 'approved', by: 'u-first' });
    });
  });
}
