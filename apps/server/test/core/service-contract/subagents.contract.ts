import type { SessionSnapshotData, Step, SubagentInfo } from '@interthought/protocol';
import { describe, expect, it } from 'vitest';
import { refusal } from '../support/refusal.js';
import type { RecordingPeer } from '../support/recording-peer.js';
import type { ServiceTarget, ServiceTargetFactory } from './service-target.js';
import { chainOf, ends, eventually, nextFrame, snapshotOf, statusReached, statusesOf } from './service-support.js';
import { counterAnswer, joinedAnswer } from './delegating-agents.js';
import { exportNdjson } from '../../../src/core/transfer/session-export.js';
import { parseImport } from '../../../src/core/transfer/session-import.js';

/** A `delegator` session created on `a`, its parts split by "; ". */
async function delegating(target: ServiceTarget, task: string, options: Record<string, unknown> = {}) {
  const { a } = ends(target);
  const creator = target.peer('creator');
  const { sessionId } = await a.create({ task, agent: 'delegator', options: { tokenDelayMs: 0, ...options } }, { peer: creator });
  return { sessionId, creator };
}

/** The snapshot's sub-agents, which it must have. */
function subagentsOf(snapshot: SessionSnapshotData): SubagentInfo[] {
  return snapshot.subagents ?? [];
}

/** The steps of a scope's chain in the snapshot. */
function scopeChain(snapshot: SessionSnapshotData, scope: string): Step[] {
  const info = subagentsOf(snapshot).find((subagent) => subagent.scope === scope);
  if (info === undefined) throw new Error(`No sub-agent ${scope} in the snapshot`);
  return info.chain.map((id) => snapshot.steps.find((step) => step.stepId === id)!);
}

/** Wait until the peer saw `subagent.status` `status` for the scope. */
async function scopeReached(peer: RecordingPeer, scope: string, status: string): Promise<void> {
  await nextFrame(peer, `sub-agent ${scope} to be ${status}`, (frame) => frame.type === 'subagent.status' && frame.scope === scope && frame.status === status);
}

/** The scopes the peer saw start, in order, by task. */
async function startedScopes(peer: RecordingPeer, count: number): Promise<Map<string, string>> {
  await eventually(() => peer.ofType('subagent.started').length >= count, `${count} sub-agents to start`);
  return new Map(peer.ofType('subagent.started').map((frame) => [frame.task as string, frame.scope as string]));
}

/** Wait until the scope's chain (as the service holds it) has a step of `kind` that streamed to the end. */
async function scopeHas(target: ServiceTarget, sessionId: string, scope: string, kind: string, content?: string): Promise<void> {
  const { b } = ends(target);
  await eventually(async () => {
    const snapshot = await snapshotOf(b, sessionId);
    return scopeChain(snapshot, scope).some((step) => step.kind === kind && step.status !== 'streaming' && (content === undefined || step.content === content));
  }, `a ${kind} in scope ${scope}`);
}

/** Sub-agents (PROTOCOL.md §24): delegate batches, scoped corrections, cancels, approvals in scopes. */
export function describeSubagents(name: string, factory: ServiceTargetFactory): void {
  describe(`${name}: sub-agents`, () => {
    it('runs a batch of two sub-agents at once, their steps interleaved in their scopes, and joins their answers', async () => {
      const target = await factory.open();
      const { b } = ends(target);
      const { sessionId, creator } = await delegating(target, 'wait alpha; wait beta');
      const scopes = await startedScopes(creator, 2);
      const alpha = scopes.get('wait alpha')!;
      const beta = scopes.get('wait beta')!;
      // Both are held after their first thought: each streamed before either answered.
      await scopeHas(target, sessionId, alpha, 'thought');
      await scopeHas(target, sessionId, beta, 'thought');
      expect(statusesOf(creator, sessionId)).toEqual(['running']);
      target.gates.of('wait beta').open();
      await scopeReached(creator, beta, 'completed');
      target.gates.of('wait alpha').open();
      await statusReached(creator, sessionId, 'completed');

      const events = creator.events(sessionId);
      const started = events.filter((event) => event.type === 'subagent.started');
      expect(started).toEqual([
        expect.objectContaining({ scope: alpha, depth: 1, name: 'part 1', agent: 'counter', task: 'wait alpha' }),
        expect.objectContaining({ scope: beta, depth: 1, name: 'part 2', agent: 'counter', task: 'wait beta' }),
      ]);
      expect(started.every((event) => !('parentScope' in event))).toBe(true);
      // Each scope's first step follows its subagent.started; its end precedes its call's observation.
      const firstStepOf = (scope: string) => events.findIndex((event) => event.type === 'step.started' && event.step.scope === scope);
      const startedAt = (scope: string) => events.findIndex((event) => event.type === 'subagent.started' && event.scope === scope);
      expect(startedAt(alpha)).toBeLessThan(firstStepOf(alpha));
      expect(startedAt(beta)).toBeLessThan(firstStepOf(beta));
      const observationAt = events.findIndex((event) => event.type === 'step.started' && event.step.kind === 'observation' && event.step.scope === undefined);
      const completedAt = (scope: string) => events.findIndex((event) => event.type === 'subagent.status' && event.scope === scope && event.status === 'completed');
      expect(completedAt(alpha)).toBeLessThan(observationAt);
      expect(completedAt(beta)).toBeLessThan(observationAt);
      // Interleaved: beta's answer came while alpha was still held.
      const answerAt = (scope: string) => events.findIndex((event) => event.type === 'step.started' && event.step.scope === scope && event.step.kind === 'final_answer');
      expect(firstStepOf(alpha)).toBeLessThan(answerAt(beta));
      expect(answerAt(beta)).toBeLessThan(answerAt(alpha));

      const snapshot = await snapshotOf(b, sessionId);
      const root = chainOf(snapshot);
      expect(root.map((step) => [step.kind, step.tool, step.scope])).toEqual([
        ['thought', undefined, undefined],
        ['tool_call', 'delegate', undefined],
        ['tool_call', 'delegate', undefined],
        ['observation', 'delegate', undefined],
        ['observation', 'delegate', undefined],
        ['final_answer', undefined, undefined],
      ]);
      const alphaAnswer = counterAnswer('wait alpha', [{ content: 'Working on wait alpha.' }]);
      const betaAnswer = counterAnswer('wait beta', [{ content: 'Working on wait beta.' }]);
      expect(root[3]).toMatchObject({ content: alphaAnswer, result: { subagent: alpha, status: 'completed', answer: alphaAnswer } });
      expect(root[4]).toMatchObject({ content: betaAnswer, result: { subagent: beta, status: 'completed', answer: betaAnswer } });
      expect(root[5]?.content).toBe(joinedAnswer([alphaAnswer, betaAnswer]));
      expect(subagentsOf(snapshot).map((info) => [info.scope, info.status, info.depth])).toEqual([
        [alpha, 'completed', 1],
        [beta, 'completed', 1],
      ]);
      expect(scopeChain(snapshot, alpha).map((step) => [step.kind, step.scope, step.parentId === null ? 'first' : 'next'])).toEqual([
        ['thought', alpha, 'first'],
        ['final_answer', alpha, 'next'],
      ]);
      expect(target.calls.of('wait alpha')).toBe(1);
      expect(target.calls.of('wait beta')).toBe(1);
    });

    it('re-runs only the corrected scope of a finished batch: its later steps and the parent after the join are invalidated, the sibling is never called again', async () => {
      const target = await factory.open();
      const { b } = ends(target);
      const { sessionId, creator } = await delegating(target, 'alpha; beta');
      await statusReached(creator, sessionId, 'completed');
      const before = await snapshotOf(b, sessionId);
      const [alpha, beta] = subagentsOf(before).map((info) => info.scope);
      const [thought, answer] = scopeChain(before, alpha!);
      const betaSteps = scopeChain(before, beta!);
      const rootBefore = chainOf(before);

      const corrector = target.peer('corrector');
      await b.subscribe(sessionId, { peer: corrector });
      const result = await b.correct({ sessionId, stepId: thought!.stepId, content: 'Think about alpha twice.' }, { peer: corrector, requestId: 'r-fix' });
      await statusReached(corrector, sessionId, 'completed');

      const caused = corrector.messages.slice(corrector.messages.findIndex((frame) => frame.type === 'correction.accepted'));
      expect(caused.map((frame) => frame.type).slice(0, 5)).toEqual(['correction.accepted', 'step.corrected', 'steps.invalidated', 'subagent.status', 'session.status']);
      expect(caused[1]).toMatchObject({ step: { stepId: result.newStepId, scope: alpha, parentId: null, index: 0, correctionOf: thought!.stepId } });
      // The scope's later steps, and the parent's chain from the join on; nothing of beta.
      expect(caused[2]!.stepIds).toEqual([thought!.stepId, answer!.stepId, ...rootBefore.slice(3).map((step) => step.stepId)]);
      expect(caused[3]).toMatchObject({ scope: alpha, status: 'running' });

      const after = await snapshotOf(b, sessionId);
      const newAnswer = counterAnswer('alpha', [{ content: 'Think about alpha twice.' }]);
      expect(scopeChain(after, alpha!).map((step) => step.content)).toEqual(['Think about alpha twice.', newAnswer]);
      expect(scopeChain(after, beta!)).toEqual(betaSteps);
      const root = chainOf(after);
      expect(root.slice(0, 3).map((step) => step.stepId)).toEqual(rootBefore.slice(0, 3).map((step) => step.stepId));
      expect(root.at(-1)?.content).toBe(joinedAnswer([newAnswer, betaSteps.at(-1)!.content]));
      expect(root.at(-1)?.content).not.toBe(rootBefore.at(-1)?.content);
      expect(target.calls.of('beta')).toBe(1);
      expect(target.calls.of('alpha')).toBe(2);
      expect(after.session).toMatchObject({ status: 'completed', revision: 1 });
    });

    it('corrects a step of a scope while its parent still waits for the batch: only that sub-agent runs again', async () => {
      const target = await factory.open();
      const { b } = ends(target);
      const { sessionId, creator } = await delegating(target, 'wait alpha; wait beta');
      const scopes = await startedScopes(creator, 2);
      const alpha = scopes.get('wait alpha')!;
      await scopeHas(target, sessionId, alpha, 'thought');
      const [thought] = scopeChain(await snapshotOf(b, sessionId), alpha);
      const rootBefore = chainOf(await snapshotOf(b, sessionId));
      const result = await b.correct({ sessionId, stepId: thought!.stepId, content: 'Alpha, again.' });
      await scopeHas(target, sessionId, alpha, 'thought', 'Alpha, again.');
      target.gates.of('wait alpha').open();
      target.gates.of('wait beta').open();
      await statusReached(creator, sessionId, 'completed');

      const invalidated = creator.events(sessionId).filter((event) => event.type === 'steps.invalidated');
      expect(invalidated).toEqual([expect.objectContaining({ stepIds: [thought!.stepId], byStepId: result.newStepId })]);
      const snapshot = await snapshotOf(b, sessionId);
      const root = chainOf(snapshot);
      // The parent's chain went on from its batch: nothing of it was invalidated or written twice.
      expect(root.slice(0, 3).map((step) => step.stepId)).toEqual(rootBefore.map((step) => step.stepId));
      expect(snapshot.steps.filter((step) => step.scope === undefined && step.status === 'invalidated')).toEqual([]);
      expect(root.at(-1)?.content).toBe(
        joinedAnswer([counterAnswer('wait alpha', [{ content: 'Alpha, again.' }]), counterAnswer('wait beta', [{ content: 'Working on wait beta.' }])]),
      );
      expect(target.calls.of('wait beta')).toBe(1);
      expect(target.calls.of('wait alpha')).toBe(2);
    });

    it('nests sub-agents to depth 2, and refuses one past the depth limit with a failed observation that starts nothing', async () => {
      const target = await factory.open();
      const { b } = ends(target);
      const { sessionId, creator } = await delegating(target, 'deeper:inner; deeper:deeper:deeper:too deep');
      await statusReached(creator, sessionId, 'completed');
      const snapshot = await snapshotOf(b, sessionId);
      const infos = subagentsOf(snapshot);
      const outer = infos.find((info) => info.task === 'deeper:inner')!;
      const inner = infos.find((info) => info.task === 'inner')!;
      expect(inner).toMatchObject({ parentScope: outer.scope, depth: 2, status: 'completed' });
      expect(outer).toMatchObject({ depth: 1, status: 'completed' });
      expect(scopeChain(snapshot, outer.scope).map((step) => step.kind)).toEqual(['thought', 'tool_call', 'observation', 'final_answer']);
      expect(scopeChain(snapshot, outer.scope)[2]).toMatchObject({ result: { subagent: inner.scope, status: 'completed' }, scope: outer.scope });
      // Depth 1, 2 and 3 run; the call that would start depth 4 fails and starts nothing.
      expect(infos.map((info) => info.depth).sort()).toEqual([1, 1, 2, 2, 3]);
      const deepest = infos.find((info) => info.depth === 3)!;
      const refused = scopeChain(snapshot, deepest.scope).find((step) => step.kind === 'observation')!;
      expect(refused.result).toMatchObject({ status: 'failed', error: expect.stringContaining('at most 3 deep') });
      expect(refused.content).toContain('at most 3 deep');
      expect(snapshot.session.status).toBe('completed');
    });

    it('cancels one sub-agent: it ends cancelled (the answer carries the request id), its observation says so, the parent goes on', async () => {
      const target = await factory.open();
      const { b } = ends(target);
      const { sessionId, creator } = await delegating(target, 'wait alpha; beta');
      const scopes = await startedScopes(creator, 2);
      const alpha = scopes.get('wait alpha')!;
      const beta = scopes.get('beta')!;
      await scopeHas(target, sessionId, alpha, 'thought');
      await scopeReached(creator, beta, 'completed');
      const canceller = target.peer('canceller');
      await b.cancelSubagent({ sessionId, scope: alpha }, { peer: canceller, requestId: 'r-stop' });
      await nextFrame(canceller, 'the answer', (frame) => frame.type === 'subagent.status');
      await statusReached(creator, sessionId, 'completed');
      expect(canceller.messages).toEqual([expect.objectContaining({ type: 'subagent.status', requestId: 'r-stop', sessionId, scope: alpha, status: 'cancelled' })]);
      await statusReached(creator, sessionId, 'completed');
      const snapshot = await snapshotOf(b, sessionId);
      const root = chainOf(snapshot);
      expect(root[3]).toMatchObject({ kind: 'observation', result: { subagent: alpha, status: 'cancelled' } });
      expect(root[3]?.content).toContain('cancelled');
      expect(root[4]).toMatchObject({ kind: 'observation', result: { subagent: beta, status: 'completed' } });
      expect(subagentsOf(snapshot).map((info) => info.status)).toEqual(['cancelled', 'completed']);
      // Refusals, typed: no such scope, a finished one, a session that does not exist.
      await refusal(() => b.cancelSubagent({ sessionId, scope: 'no-such-scope' }), 'STEP_NOT_FOUND');
      const finished = await refusal(() => b.cancelSubagent({ sessionId, scope: beta }), 'INVALID_STATE');
      expect(finished.message).toContain('completed');
      await refusal(() => b.cancelSubagent({ sessionId: 'no-such-session', scope: alpha }), 'SESSION_NOT_FOUND');
    });

    it('waits for approval inside one scope while its sibling goes on; the session waits once nothing runs, and approving continues it', async () => {
      const target = await factory.open();
      const { b } = ends(target);
      const { sessionId, creator } = await delegating(target, 'tool alpha; wait beta', { approve: ['adder'] });
      const scopes = await startedScopes(creator, 2);
      const alpha = scopes.get('tool alpha')!;
      const beta = scopes.get('wait beta')!;
      await scopeReached(creator, alpha, 'waiting');
      const asked = await nextFrame(creator, 'approval.requested', (frame) => frame.type === 'approval.requested');
      // The sibling still runs: the session does too.
      await scopeHas(target, sessionId, beta, 'thought');
      expect((await snapshotOf(b, sessionId)).session.status).toBe('running');
      target.gates.of('wait beta').open();
      await scopeReached(creator, beta, 'completed');
      await statusReached(creator, sessionId, 'waiting');
      const approver = target.peer('approver');
      await b.approve({ sessionId, stepId: asked.stepId as string, by: 'u-ok' }, { peer: approver, requestId: 'r-ok' });
      await statusReached(creator, sessionId, 'completed');
      expect(statusesOf(creator, sessionId)).toEqual(['running', 'waiting', 'running', 'completed']);
      const snapshot = await snapshotOf(b, sessionId);
      expect(scopeChain(snapshot, alpha).map((step) => step.kind)).toEqual(['thought', 'tool_call', 'observation', 'final_answer']);
      expect(scopeChain(snapshot, alpha)[1]).toMatchObject({ approval: { state: 'approved', by: 'u-ok' } });
      expect(chainOf(snapshot).at(-1)?.content).toContain('Joined:');
      expect(target.calls.of('wait beta')).toBe(1);
    });
    it('forks at a call waiting for approval in a scope: the copy asks again on resume and never runs the call unapproved', async () => {
      const target = await factory.open();
      const { a, b } = ends(target);
      const { sessionId, creator } = await delegating(target, 'tool alpha; beta', { approve: ['adder'] });
      const scopes = await startedScopes(creator, 2);
      const alpha = scopes.get('tool alpha')!;
      await scopeReached(creator, alpha, 'waiting');
      const asked = await nextFrame(creator, 'approval.requested', (frame) => frame.type === 'approval.requested');
      await statusReached(creator, sessionId, 'waiting');
      const fork = await b.fork({ sessionId, stepId: asked.stepId as string });
      const copy = await snapshotOf(b, fork.sessionId);
      expect(copy.session.status).toBe('interrupted');
      const [copiedAlpha] = subagentsOf(copy);
      const copiedCall = scopeChain(copy, copiedAlpha!.scope).at(-1)!;
      expect(copiedCall).toMatchObject({ kind: 'tool_call', tool: 'adder' });
      expect(copiedCall.approval).toBeUndefined();

      const resumer = target.peer('resumer');
      await b.subscribe(fork.sessionId, { peer: resumer });
      await b.resume(fork.sessionId);
      const askedAgain = await nextFrame(resumer, 'approval.requested in the fork', (frame) => frame.type === 'approval.requested' && frame.sessionId === fork.sessionId);
      expect(askedAgain.stepId).toBe(copiedCall.stepId);
      await statusReached(resumer, fork.sessionId, 'waiting');
      const waiting = await snapshotOf(a, fork.sessionId);
      expect(scopeChain(waiting, copiedAlpha!.scope).map((step) => step.kind)).toEqual(['thought', 'tool_call']);
      expect(scopeChain(waiting, copiedAlpha!.scope)[1]).toMatchObject({ approval: { state: 'pending' } });
      // The source still waits for its own decision, untouched by the fork's.
      expect((await snapshotOf(a, sessionId)).session.status).toBe('waiting');
    });

    it('forks at a root step with the scopes of the delegate calls it copies, whole, under new ids', async () => {
      const target = await factory.open();
      const { a, b } = ends(target);
      const { sessionId, creator } = await delegating(target, 'alpha; beta');
      await statusReached(creator, sessionId, 'completed');
      const source = await snapshotOf(a, sessionId);
      const root = chainOf(source);
      const fork = await b.fork({ sessionId, stepId: root[4]!.stepId });
      const copy = await snapshotOf(b, fork.sessionId);
      expect(copy.session.status).toBe('idle');
      const copiedRoot = chainOf(copy);
      expect(copiedRoot.map((step) => [step.kind, step.content])).toEqual(root.slice(0, 5).map((step) => [step.kind, step.content]));
      const infos = subagentsOf(copy);
      // The scopes are the copies of the delegate calls, with their chains and statuses.
      expect(infos.map((info) => info.scope)).toEqual([copiedRoot[1]!.stepId, copiedRoot[2]!.stepId]);
      expect(infos.map((info) => [info.task, info.status, info.depth])).toEqual([
        ['alpha', 'completed', 1],
        ['beta', 'completed', 1],
      ]);
      for (const [index, info] of infos.entries()) {
        const original = subagentsOf(source)[index]!;
        expect(scopeChain(copy, info.scope).map((step) => [step.kind, step.content, step.scope])).toEqual(
          scopeChain(source, original.scope).map((step) => [step.kind, step.content, info.scope]),
        );
      }
    });

    it('forks at a scoped step: the root up to the batch, the sibling whole, the scope up to the step; interrupted, and resume runs it on', async () => {
      const target = await factory.open();
      const { a, b } = ends(target);
      const { sessionId, creator } = await delegating(target, 'alpha; beta');
      await statusReached(creator, sessionId, 'completed');
      const source = await snapshotOf(a, sessionId);
      const [alpha] = subagentsOf(source);
      const [thought] = scopeChain(source, alpha!.scope);
      const fork = await b.fork({ sessionId, stepId: thought!.stepId });
      const copy = await snapshotOf(b, fork.sessionId);
      expect(copy.session.status).toBe('interrupted');
      expect(chainOf(copy).map((step) => [step.kind, step.tool])).toEqual([
        ['thought', undefined],
        ['tool_call', 'delegate'],
        ['tool_call', 'delegate'],
      ]);
      const [copiedAlpha, copiedBeta] = subagentsOf(copy);
      expect(copiedAlpha).toMatchObject({ task: 'alpha', status: 'interrupted' });
      expect(scopeChain(copy, copiedAlpha!.scope).map((step) => step.kind)).toEqual(['thought']);
      expect(copiedBeta).toMatchObject({ task: 'beta', status: 'completed' });
      expect(scopeChain(copy, copiedBeta!.scope).map((step) => step.kind)).toEqual(['thought', 'final_answer']);

      const resumer = target.peer('resumer');
      await b.subscribe(fork.sessionId, { peer: resumer });
      await b.resume(fork.sessionId);
      await statusReached(resumer, fork.sessionId, 'completed');
      const resumed = await snapshotOf(a, fork.sessionId);
      expect(chainOf(resumed).at(-1)?.content).toBe(joinedAnswer([counterAnswer('alpha', [{ content: 'Working on alpha.' }]), scopeChain(copy, copiedBeta!.scope)[1]!.content]));
      // The finished sibling gave its stored answer: only alpha's agent ran again.
      expect(target.calls.of('beta')).toBe(1);
      expect(target.calls.of('alpha')).toBe(2);
    });

    it('exports and imports a session with its scopes: the import folds to the same snapshot but for its id', async () => {
      const target = await factory.open();
      const { a, b } = ends(target);
      const { sessionId, creator } = await delegating(target, 'alpha; deeper:beta');
      await statusReached(creator, sessionId, 'completed');
      const source = await snapshotOf(a, sessionId);
      const text = exportNdjson(await a.exportSession(sessionId));
      expect(text).toContain('"type":"subagent.started"');
      const info = await b.importSession(parseImport(text, new Date().toISOString()));
      const imported = await snapshotOf(b, info.sessionId);
      expect(imported.chain).toEqual(source.chain);
      expect(imported.subagents).toEqual(source.subagents);
      expect(imported.steps.map((step) => [step.stepId, step.scope, step.content])).toEqual(source.steps.map((step) => [step.stepId, step.scope, step.content]));
      expect(subagentsOf(imported).map((subagent) => subagent.depth)).toEqual([1, 1, 2]);
    });
    it('rejects a scoped call nobody decided in time: the sub-agent goes on after the refusal and the batch joins', async () => {
      const target = await factory.open();
      const { b } = ends(target);
      const { sessionId, creator } = await delegating(target, 'tool alpha; beta', { approve: ['adder'], approvalTimeoutMs: 1_000 });
      await statusReached(creator, sessionId, 'completed');
      const snapshot = await snapshotOf(b, sessionId);
      const alpha = subagentsOf(snapshot).find((info) => info.task === 'tool alpha')!;
      const [, call, refusal] = scopeChain(snapshot, alpha.scope);
      expect(call).toMatchObject({ kind: 'tool_call', approval: { state: 'rejected', by: 'server' } });
      expect(refusal).toMatchObject({ kind: 'observation', scope: alpha.scope, result: { refused: true, by: 'server' } });
      expect(alpha.status).toBe('completed');
      expect(target.calls.of('beta')).toBe(1);
    });
  });
}
