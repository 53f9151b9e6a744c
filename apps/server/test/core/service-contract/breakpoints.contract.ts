import { breakpointDetail, createSessionState, pausedAtBreakpoint, type SessionSnapshotData, type Step } from '@interthought/protocol';
import { describe, expect, it } from 'vitest';
import { refusal } from '../support/refusal.js';
import type { RecordingPeer } from '../support/recording-peer.js';
import type { ServiceTarget, ServiceTargetFactory } from './service-target.js';
import { chainOf, ends, eventually, nextFrame, snapshotOf, statusReached, statusesOf } from './service-support.js';

const TASK = 'What is 12 * 7?';
const BEFORE_CALCULATOR = [{ kind: 'tool_call', tool: 'calculator' }];

/** A demo session created on `a` with `options` (tokens unpaced). */
async function demoSession(target: ServiceTarget, options: Record<string, unknown> = {}, task = TASK) {
  const { a } = ends(target);
  const creator = target.peer('creator');
  const { sessionId } = await a.create({ task, agent: 'demo', options: { tokenDelayMs: 0, ...options } }, { peer: creator });
  return { sessionId, creator };
}

/** The session's events of `type` the peer got. */
function eventsOf(peer: RecordingPeer, sessionId: string, type: string) {
  return peer.events(sessionId).filter((event) => event.type === type);
}

/** The step a breakpoint stopped the snapshot's session at, as the protocol's rule reads it. */
function stoppedAt(snapshot: SessionSnapshotData): Step | undefined {
  return pausedAtBreakpoint(createSessionState(snapshot));
}

/** The steps of a sub-agent's chain in the snapshot. */
function scopeChain(snapshot: SessionSnapshotData, scope: string): Step[] {
  const info = (snapshot.subagents ?? []).find((subagent) => subagent.scope === scope);
  if (info === undefined) throw new Error(`No sub-agent ${scope} in the snapshot`);
  return info.chain.map((id) => snapshot.steps.find((step) => step.stepId === id)!);
}

/** The last `session.status` of the session the peer got. */
function lastStatus(peer: RecordingPeer, sessionId: string): string | undefined {
  return statusesOf(peer, sessionId).at(-1);
}

/**
 * Resume the session at every stop until it completes, from `a` and `b` in turn; `atStop` looks
 * at each stop first. Returns how many times it resumed. Stops of two sub-agents in one turn are
 * one pause, and one resume goes on from both.
 */
async function resumeEachStop(target: ServiceTarget, peer: RecordingPeer, sessionId: string, atStop: (stop: number) => Promise<void> = async () => undefined): Promise<number> {
  const { a, b } = ends(target);
  let resumes = 0;
  for (;;) {
    await eventually(() => lastStatus(peer, sessionId) === 'paused' || lastStatus(peer, sessionId) === 'completed', `stop ${resumes + 1} or the end`);
    if (lastStatus(peer, sessionId) === 'completed') return resumes;
    resumes += 1;
    await atStop(resumes);
    const seen = statusesOf(peer, sessionId).length;
    await (resumes % 2 === 0 ? a : b).resume(sessionId);
    await eventually(() => statusesOf(peer, sessionId).length > seen, `the status after resume ${resumes}`);
  }
}

/** Breakpoints (PROTOCOL.md §25.5): stops at chosen steps, resume, a correction at the stop, sub-agents, bad options. */
export function describeBreakpoints(name: string, factory: ServiceTargetFactory): void {
  describe(`${name}: breakpoints`, () => {
    it('stops before the tool runs: breakpoint.hit after the call, paused naming the stop; resuming from the other service runs the tool to the answer', async () => {
      const target = await factory.open();
      const { b } = ends(target);
      const { sessionId, creator } = await demoSession(target, { breakpoints: BEFORE_CALCULATOR });
      await statusReached(creator, sessionId, 'paused');
      const hit = await nextFrame(creator, 'breakpoint.hit', (frame) => frame.type === 'breakpoint.hit');
      expect(hit).toMatchObject({ sessionId, breakpoint: { kind: 'tool_call', tool: 'calculator' }, index: 0 });

      // In one turn: the call's step.completed, breakpoint.hit, then paused with the detail.
      const events = creator.events(sessionId);
      const at = events.findIndex((event) => event.type === 'breakpoint.hit');
      expect(events[at - 1]).toMatchObject({ type: 'step.completed', stepId: hit.stepId, tool: 'calculator' });
      expect(events[at + 1]).toMatchObject({ type: 'session.status', status: 'paused', detail: breakpointDetail('tool_call', 'calculator') });
      expect(events[at + 1]?.seq).toBe((events[at]?.seq ?? 0) + 1);

      // The tool has not run: the call is the head, with the stop's mark, and nothing came after it.
      const paused = await snapshotOf(b, sessionId);
      expect(paused.session).toMatchObject({ status: 'paused', detail: 'Stopped at a breakpoint: before calculator runs' });
      expect(chainOf(paused).map((step) => step.kind)).toEqual(['thought', 'action', 'tool_call']);
      expect(chainOf(paused).at(-1)).toMatchObject({ stepId: hit.stepId, breakpoint: { kind: 'tool_call', tool: 'calculator', index: 0 } });
      expect(stoppedAt(paused)?.stepId).toBe(hit.stepId);
      expect(creator.events(sessionId).at(-1)).toMatchObject({ type: 'session.status', status: 'paused' });

      const resumer = target.peer('resumer');
      await b.resume(sessionId, { peer: resumer, requestId: 'r-go' });
      await statusReached(creator, sessionId, 'completed');
      expect(resumer.messages[0]).toMatchObject({ type: 'session.status', requestId: 'r-go', status: 'running' });
      expect(statusesOf(creator, sessionId)).toEqual(['running', 'paused', 'running', 'completed']);
      const chain = chainOf(await snapshotOf(b, sessionId));
      expect(chain.map((step) => step.kind)).toEqual(['thought', 'action', 'tool_call', 'observation', 'final_answer']);
      expect(chain[3]).toMatchObject({ tool: 'calculator', result: { value: 84 } });
      expect(chain.at(-1)?.content).toContain('84');
      expect(eventsOf(creator, sessionId, 'breakpoint.hit')).toHaveLength(1);
    });

    it('in step mode ("all") stops after every step the agent writes, and resuming each time reaches the answer it gives without breakpoints', async () => {
      const target = await factory.open();
      const { a, b } = ends(target);
      const plain = await demoSession(target);
      await statusReached(plain.creator, plain.sessionId, 'completed');
      const expected = chainOf(await snapshotOf(a, plain.sessionId));

      const { sessionId, creator } = await demoSession(target, { breakpoints: 'all' });
      const stops = await resumeEachStop(target, creator, sessionId, async (stop) => {
        const snapshot = await snapshotOf(b, sessionId);
        const head = chainOf(snapshot).at(-1)!;
        // One step more than at the last stop, and the session stopped at it.
        expect(chainOf(snapshot)).toHaveLength(stop);
        expect(stoppedAt(snapshot)?.stepId).toBe(head.stepId);
        expect(snapshot.session.detail).toBe(breakpointDetail(head.kind, head.tool));
      });
      expect(stops).toBe(expected.length);
      const hits = eventsOf(creator, sessionId, 'breakpoint.hit');
      expect(hits).toHaveLength(expected.length);
      for (const hit of hits) expect(hit).toMatchObject({ breakpoint: {} });
      expect(hits.every((hit) => !('index' in hit))).toBe(true);
      const chain = chainOf(await snapshotOf(b, sessionId));
      expect(chain.map((step) => [step.kind, step.content])).toEqual(expected.map((step) => [step.kind, step.content]));
      expect(chain.at(-1)?.content).toContain('84');
      // The last stop was after the final answer: resuming ended the run there, as it would have.
      expect(statusesOf(creator, sessionId).slice(-3)).toEqual(['running', 'paused', 'completed']);
    });

    it('in step mode, a task the demo splits into sub-agents reaches the same answers; a sub-agent\'s result (its delegate call\'s observation) is no stop', async () => {
      const target = await factory.open();
      const { a, b } = ends(target);
      const task = 'What is 17 * 23 + 4? Also, what is 15% of 240?';
      const plain = await demoSession(target, {}, task);
      await statusReached(plain.creator, plain.sessionId, 'completed');
      const expected = await snapshotOf(a, plain.sessionId);

      const { sessionId, creator } = await demoSession(target, { breakpoints: 'all' }, task);
      const resumes = await resumeEachStop(target, creator, sessionId);
      const done = await snapshotOf(b, sessionId);
      const kindsAndContents = (snapshot: SessionSnapshotData, chain: readonly string[]) =>
        chain.map((id) => snapshot.steps.find((step) => step.stepId === id)!).map((step) => [step.kind, step.tool, step.content]);
      expect(kindsAndContents(done, done.chain)).toEqual(kindsAndContents(expected, expected.chain));
      const scopesOf = (snapshot: SessionSnapshotData) => (snapshot.subagents ?? []).map((info) => [info.task, info.status, kindsAndContents(snapshot, info.chain)]);
      expect(scopesOf(done)).toEqual(scopesOf(expected));
      const hits = eventsOf(creator, sessionId, 'breakpoint.hit').map((hit) => done.steps.find((step) => step.stepId === (hit.type === 'breakpoint.hit' ? hit.stepId : ''))!);
      expect(hits.some((step) => step.kind === 'observation' && step.tool === 'delegate')).toBe(false);
      expect(hits.some((step) => step.scope !== undefined)).toBe(true);
      // Stops of both sub-agents in one turn are one pause: as many hits as resumes, or more.
      expect(hits.length).toBeGreaterThanOrEqual(resumes);
      expect(resumes).toBeGreaterThan(done.chain.length);
    });

    it('a correction of the stopped call keeps the session paused and runs nothing; resume runs the corrected input, with no stop at the corrected call', async () => {
      const target = await factory.open();
      const { a, b } = ends(target);
      const { sessionId, creator } = await demoSession(target, { breakpoints: BEFORE_CALCULATOR });
      await statusReached(creator, sessionId, 'paused');
      const hit = await nextFrame(creator, 'breakpoint.hit', (frame) => frame.type === 'breakpoint.hit');
      const call = chainOf(await snapshotOf(a, sessionId)).at(-1)!;
      const edited = call.content.replace('12 * 7', '12 * 8');
      expect(edited).not.toBe(call.content);

      const correction = await b.correct({ sessionId, stepId: hit.stepId as string, content: edited });
      const paused = await snapshotOf(b, sessionId);
      expect(paused.session.status).toBe('paused');
      expect(chainOf(paused).at(-1)).toMatchObject({ stepId: correction.newStepId, kind: 'tool_call', content: edited, correctionOf: hit.stepId });
      expect(chainOf(paused).at(-1)?.breakpoint).toBeUndefined();
      // Nothing runs while paused: no step after the correction, not even a started one.
      await nextFrame(creator, 'steps.invalidated', (frame) => frame.type === 'steps.invalidated' && frame.sessionId === sessionId);
      expect((await snapshotOf(a, sessionId)).steps).toHaveLength(4);
      const afterCorrection = creator.events(sessionId).slice(creator.events(sessionId).findIndex((event) => event.type === 'step.corrected'));
      expect(afterCorrection.map((event) => event.type)).toEqual(['step.corrected', 'steps.invalidated']);

      // A second thought on the same call: still paused, still nothing runs.
      const again = await a.correct({ sessionId, stepId: correction.newStepId, content: call.content.replace('12 * 7', '12 * 9') });
      await nextFrame(creator, 'the second steps.invalidated', (frame) => frame.type === 'steps.invalidated' && frame.sessionId === sessionId && (frame.seq as number) > (afterCorrection.at(-1)?.seq ?? 0));
      const twice = await snapshotOf(b, sessionId);
      expect(twice.session.status).toBe('paused');
      expect(twice.steps).toHaveLength(5);

      await a.resume(sessionId);
      await statusReached(creator, sessionId, 'completed');
      const chain = chainOf(await snapshotOf(b, sessionId));
      expect(chain.map((step) => step.kind)).toEqual(['thought', 'action', 'tool_call', 'observation', 'final_answer']);
      expect(chain[2]?.stepId).toBe(again.newStepId);
      expect(chain[3]).toMatchObject({ tool: 'calculator', result: { value: 108 } });
      expect(chain.at(-1)?.content).toContain('108');
      expect(eventsOf(creator, sessionId, 'breakpoint.hit')).toHaveLength(1);
    });

    it('stops inside a sub-agent: its call waits unrun, its sibling is held as by a pause, and resume runs both to the joined answer', async () => {
      const target = await factory.open();
      const { a, b } = ends(target);
      const creator = target.peer('creator');
      const task = 'tool one; wait beta';
      const { sessionId } = await a.create({ task, agent: 'delegator', options: { tokenDelayMs: 0, breakpoints: [{ kind: 'final_answer' }, { tool: 'add*' }] } }, { peer: creator });
      await statusReached(creator, sessionId, 'paused');
      const hit = await nextFrame(creator, 'breakpoint.hit', (frame) => frame.type === 'breakpoint.hit');
      expect(hit).toMatchObject({ breakpoint: { tool: 'add*' }, index: 1 });
      const scopes = new Map(creator.ofType('subagent.started').map((frame) => [frame.task as string, frame.scope as string]));
      const one = scopes.get('tool one')!;
      const beta = scopes.get('wait beta')!;

      const paused = await snapshotOf(b, sessionId);
      expect(paused.session).toMatchObject({ status: 'paused', detail: 'Stopped at a breakpoint: before adder runs' });
      expect(scopeChain(paused, one).map((step) => step.kind)).toEqual(['thought', 'tool_call']);
      expect(scopeChain(paused, one).at(-1)).toMatchObject({ stepId: hit.stepId, scope: one, tool: 'adder', breakpoint: { tool: 'add*', index: 1 } });
      expect(stoppedAt(paused)?.stepId).toBe(hit.stepId);
      expect((paused.subagents ?? []).find((info) => info.scope === one)?.status).toBe('running');

      // The sibling passes its gate while paused: it is held before its next token, as by session.pause.
      target.gates.of('wait beta').open();
      await snapshotOf(a, sessionId);
      expect(scopeChain(await snapshotOf(b, sessionId), beta).some((step) => step.kind === 'final_answer' && step.status === 'completed')).toBe(false);

      // Each sub-agent's final answer is a stop too (breakpoint 0), and the session's own: resume on from each until the end.
      await resumeEachStop(target, creator, sessionId);
      const done = await snapshotOf(b, sessionId);
      const oneChain = scopeChain(done, one);
      expect(oneChain.map((step) => step.kind)).toEqual(['thought', 'tool_call', 'observation', 'final_answer']);
      expect(oneChain[2]).toMatchObject({ tool: 'adder', result: { sum: 5 } });
      expect((done.subagents ?? []).map((info) => info.status)).toEqual(['completed', 'completed']);
      const hits = eventsOf(creator, sessionId, 'breakpoint.hit');
      // A breakpoint without a kind stops at every step of its tool: the adder's call and its observation; then each sub-agent's final answer and the session's own.
      expect(hits.map((hit) => hit.index)).toEqual([1, 1, 0, 0, 0]);
      expect(chainOf(done).at(-1)?.kind).toBe('final_answer');
      expect(chainOf(done).at(-1)?.content).toContain(scopeChain(done, beta).at(-1)!.content);
      expect(chainOf(done).at(-1)?.content).toContain(oneChain.at(-1)!.content);
    });

    it('refuses bad options.breakpoints with BAD_FRAME naming the path, and creates no session', async () => {
      const target = await factory.open();
      const { a } = ends(target);
      const bad: unknown[] = [[], 'some', [{ kind: 'user_message' }], [{ tool: '' }], [{ kind: 'thought', when: 'always' }], Array.from({ length: 33 }, () => ({}))];
      for (const breakpoints of bad) {
        const error = await refusal(() => a.create({ task: TASK, agent: 'demo', options: { breakpoints } as never }), 'BAD_FRAME');
        expect(error.details?.[0]?.path.slice(0, 2)).toEqual(['options', 'breakpoints']);
      }
      expect((await a.list({ limit: 10 })).sessions).toEqual([]);
    });
  });
}
