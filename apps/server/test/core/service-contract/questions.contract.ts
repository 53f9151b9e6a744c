import { ASK_USER_TOOL, type SessionSnapshotData, type Step } from '@interthought/protocol';
import { describe, expect, it } from 'vitest';
import { SessionError } from '../../../src/core/session-error.js';
import { refusal } from '../support/refusal.js';
import type { RecordingPeer } from '../support/recording-peer.js';
import type { ServiceTarget, ServiceTargetFactory } from './service-target.js';
import { chainOf, ends, eventually, nextFrame, snapshotOf, statusReached, statusesOf } from './service-support.js';
import { ASKED, ASKER_THOUGHT, askerAnswer } from './asking-agents.js';
import { counterAnswer, counterQuestion, joinedAnswer } from './delegating-agents.js';

/** An `asker` session created on `a`, waiting for the answer to its question. */
async function askingSession(target: ServiceTarget, options: Record<string, unknown> = {}, task = 'Replace a number') {
  const { a } = ends(target);
  const creator = target.peer('creator');
  const { sessionId } = await a.create({ task, agent: 'asker', options: { tokenDelayMs: 0, ...options } }, { peer: creator });
  const asked = await nextFrame(creator, 'input.requested', (frame) => frame.type === 'input.requested' && frame.sessionId === sessionId);
  await statusReached(creator, sessionId, 'waiting');
  return { sessionId, creator, stepId: asked.stepId as string };
}

/** The step of the snapshot, which it must have. */
function stepOf(snapshot: SessionSnapshotData, stepId: string): Step {
  const step = snapshot.steps.find((candidate) => candidate.stepId === stepId);
  if (step === undefined) throw new Error(`No step ${stepId} in the snapshot`);
  return step;
}

/** The types of the session's events the peer got from the one of type `from` on, in order. */
function typesFrom(peer: RecordingPeer, sessionId: string, from: string): string[] {
  const types = peer.events(sessionId).map((event) => event.type);
  return types.slice(types.indexOf(from as (typeof types)[number]));
}

/** Questions (PROTOCOL.md §25.1, §25.2): `ask_user` makes the session wait, `input.provide` answers it. */
export function describeQuestions(name: string, factory: ServiceTargetFactory): void {
  describe(`${name}: questions`, () => {
    it('waits at a valid ask_user call, and an answer from the other service becomes the observation, with who gave it, and the agent goes on', async () => {
      const target = await factory.open();
      const { b } = ends(target);
      const { sessionId, creator, stepId } = await askingSession(target);
      // In one turn: the call completes, the question is asked, the session waits with the question as its detail.
      expect(typesFrom(creator, sessionId, 'input.requested')).toEqual(['input.requested', 'session.status']);
      const events = creator.events(sessionId);
      const requestedAt = events.findIndex((event) => event.type === 'input.requested');
      expect(events[requestedAt - 1]).toMatchObject({ type: 'step.completed', stepId, tool: ASK_USER_TOOL });
      expect(events[requestedAt]).toMatchObject({ stepId, question: ASKED.question, choices: ASKED.choices });
      expect(events.at(-1)).toMatchObject({ type: 'session.status', status: 'waiting', detail: `Waiting for your answer: ${ASKED.question}` });
      const waiting = await snapshotOf(b, sessionId);
      expect(stepOf(waiting, stepId)).toMatchObject({ kind: 'tool_call', tool: ASK_USER_TOOL, question: { state: 'pending' } });
      expect(stepOf(waiting, stepId)).not.toHaveProperty('approval');

      const answerer = target.peer('answerer');
      await b.subscribe(sessionId, { peer: answerer });
      await b.provideInput({ sessionId, stepId, text: '5', by: 'u-ann', byName: 'Ann' }, { peer: answerer, requestId: 'r-answer' });
      await statusReached(creator, sessionId, 'completed');
      await statusReached(answerer, sessionId, 'completed');
      // The requester's copy replaces the plain one: it gets the answer's event once, with its request id.
      expect(answerer.ofType('input.resolved')).toEqual([expect.objectContaining({ requestId: 'r-answer', stepId, outcome: 'answered', by: 'u-ann', byName: 'Ann' })]);
      expect(creator.ofType('input.resolved')).toEqual([expect.not.objectContaining({ requestId: expect.anything() })]);
      expect(typesFrom(creator, sessionId, 'input.resolved').slice(0, 4)).toEqual(['input.resolved', 'session.status', 'step.started', 'step.completed']);
      expect(statusesOf(creator, sessionId)).toEqual(['running', 'waiting', 'running', 'completed']);

      const done = await snapshotOf(b, sessionId);
      const chain = chainOf(done);
      expect(chain.map((step) => step.kind)).toEqual(['thought', 'tool_call', 'observation', 'final_answer']);
      expect(chain[2]).toMatchObject({ tool: ASK_USER_TOOL, content: '5', by: 'u-ann', byName: 'Ann', result: { answer: '5', by: 'u-ann', byName: 'Ann', choice: 1 } });
      expect(chain[3]?.content).toBe(askerAnswer('5'));
      expect(stepOf(done, stepId).question).toMatchObject({ state: 'answered', by: 'u-ann', byName: 'Ann' });
    });

    it('never waits for approval at an ask_user call, whatever the policy: it asks', async () => {
      const target = await factory.open();
      const { b } = ends(target);
      const { sessionId, creator, stepId } = await askingSession(target, { approve: 'all' });
      expect(creator.ofType('approval.requested')).toEqual([]);
      expect(stepOf(await snapshotOf(b, sessionId), stepId)).not.toHaveProperty('approval');
      await b.provideInput({ sessionId, stepId, text: '20', by: 'u-all' });
      await statusReached(creator, sessionId, 'completed');
      expect(creator.ofType('approval.requested')).toEqual([]);
    });

    it('forks a waiting question without it: the fork is idle and its copy of the call waits for nobody', async () => {
      const target = await factory.open();
      const { a, b } = ends(target);
      const { sessionId, stepId } = await askingSession(target);
      const forker = target.peer('forker');
      const fork = await a.fork({ sessionId, stepId }, { peer: forker });
      const copy = chainOf(await snapshotOf(b, fork.sessionId)).at(-1)!;
      expect(copy).toMatchObject({ kind: 'tool_call', tool: ASK_USER_TOOL, copiedFrom: { sessionId, stepId } });
      expect(copy).not.toHaveProperty('question');
      await refusal(() => b.provideInput({ sessionId: fork.sessionId, stepId: copy.stepId, text: '5' }), 'INPUT_NOT_PENDING');
      expect(stepOf(await snapshotOf(b, sessionId), stepId).question).toMatchObject({ state: 'pending' });
    });

    it('answers in the user\'s own words carry no choice', async () => {
      const target = await factory.open();
      const { b } = ends(target);
      const { sessionId, creator, stepId } = await askingSession(target);
      await b.provideInput({ sessionId, stepId, text: 'Neither: replace the 7.', by: 'u-own' });
      await statusReached(creator, sessionId, 'completed');
      const observation = chainOf(await snapshotOf(b, sessionId))[2];
      expect(observation?.result).toEqual({ answer: 'Neither: replace the 7.', by: 'u-own' });
    });

    it('of two answers at once from two connections exactly one wins, and the other is refused naming who answered', async () => {
      const target = await factory.open();
      const { a, b } = ends(target);
      const { sessionId, creator, stepId } = await askingSession(target);
      const one = target.peer('one');
      const two = target.peer('two');
      const answers = await Promise.allSettled([
        a.provideInput({ sessionId, stepId, text: '20', by: 'u-one', byName: 'One' }, { peer: one, requestId: 'r-one' }),
        b.provideInput({ sessionId, stepId, text: '5', by: 'u-two', byName: 'Two' }, { peer: two, requestId: 'r-two' }),
      ]);
      const won = answers.filter((answer) => answer.status === 'fulfilled');
      const lost = answers.flatMap((answer) => (answer.status === 'rejected' ? [answer.reason as unknown] : []));
      expect(won).toHaveLength(1);
      expect(lost).toHaveLength(1);
      const winner = answers[0]!.status === 'fulfilled' ? { name: 'One', text: '20' } : { name: 'Two', text: '5' };
      expect(lost[0]).toBeInstanceOf(SessionError);
      expect(lost[0]).toMatchObject({ code: 'INPUT_NOT_PENDING', message: expect.stringContaining(`already answered by ${winner.name}`) });
      await statusReached(creator, sessionId, 'completed');
      const chain = chainOf(await snapshotOf(b, sessionId));
      expect(chain.filter((step) => step.kind === 'observation')).toEqual([expect.objectContaining({ content: winner.text })]);
      expect(creator.ofType('input.resolved')).toHaveLength(1);
    });

    it('refuses answers with typed codes, in the order of §25.2', async () => {
      const target = await factory.open();
      const { a, b } = ends(target);
      const { sessionId, creator, stepId } = await askingSession(target);
      const other = await askingSession(target);
      const thought = chainOf(await snapshotOf(b, sessionId))[0]!;
      expect(thought.content).toBe(ASKER_THOUGHT);
      await refusal(() => b.provideInput({ sessionId, stepId, text: '' }), 'BAD_FRAME');
      await refusal(() => b.provideInput({ sessionId, stepId, text: 'x'.repeat(20_001) }), 'BAD_FRAME');
      await refusal(() => b.provideInput({ sessionId, stepId, text: 'half \ud800' }), 'BAD_FRAME');
      await refusal(() => b.provideInput({ sessionId: 'no-such-session', stepId, text: '5' }), 'SESSION_NOT_FOUND');
      await refusal(() => b.provideInput({ sessionId, stepId: 'no-such-step', text: '5' }), 'STEP_NOT_FOUND');
      const foreign = await refusal(() => b.provideInput({ sessionId, stepId: other.stepId, text: '5' }), 'STEP_NOT_FOUND');
      expect(foreign.message).toContain(`Session ${sessionId} has no step ${other.stepId}`);
      const notQuestion = await refusal(() => a.provideInput({ sessionId, stepId: thought.stepId, text: '5' }), 'INPUT_NOT_PENDING');
      expect(notQuestion.message).toContain(`Step ${thought.stepId} is a thought, not a question`);
      // While it waits for the answer, the session takes no message and cannot be paused (§25.2, §20.2).
      const message = await refusal(() => b.message({ sessionId, text: 'Hurry up.' }), 'INVALID_STATE');
      expect(message.message).toContain('answer it (input.provide) first');
      await refusal(() => b.pause(sessionId), 'INVALID_STATE');
      expect((await snapshotOf(b, sessionId)).session.status).toBe('waiting');

      await b.provideInput({ sessionId, stepId, text: '20', by: 'u-first', byName: 'First' });
      await statusReached(creator, sessionId, 'completed');
      const again = await refusal(() => a.provideInput({ sessionId, stepId, text: '5', by: 'u-second' }), 'INPUT_NOT_PENDING');
      expect(again.message).toMatch(/already answered by First at \d{4}-/);

      // A correction of an earlier step takes the question off the chain: it can no longer be answered.
      await b.correct({ sessionId: other.sessionId, stepId: chainOf(await snapshotOf(b, other.sessionId))[0]!.stepId, content: 'Let me think again.' });
      await nextFrame(other.creator, 'the question asked again', (frame) => frame.type === 'input.requested' && frame.stepId !== other.stepId);
      await refusal(() => b.provideInput({ sessionId: other.sessionId, stepId: other.stepId, text: '5' }), 'STEP_INVALIDATED');
      await b.cancel(other.sessionId);
      const cancelled = await refusal(() => b.provideInput({ sessionId: other.sessionId, stepId: other.stepId, text: '5' }), 'SESSION_CANCELLED');
      expect(cancelled.message).toContain('cancelled');
    });

    it('answers ask_user input that does not fit like any tool\'s bad input: an Error observation, and nothing waits', async () => {
      const target = await factory.open();
      const { a, b } = ends(target);
      const creator = target.peer('creator');
      const { sessionId } = await a.create({ task: 'Ask badly', agent: 'asker', options: { tokenDelayMs: 0 } }, { peer: creator });
      await statusReached(creator, sessionId, 'completed');
      expect(statusesOf(creator, sessionId)).toEqual(['running', 'completed']);
      expect(creator.ofType('input.requested')).toEqual([]);
      const chain = chainOf(await snapshotOf(b, sessionId));
      expect(chain.map((step) => step.kind)).toEqual(['thought', 'tool_call', 'observation', 'final_answer']);
      expect(chain[2]).toMatchObject({ tool: ASK_USER_TOOL, content: expect.stringMatching(/^Error: /), result: { error: expect.any(String) } });
      const call = chain[1]!;
      const notAsked = await refusal(() => b.provideInput({ sessionId, stepId: call.stepId, text: '5' }), 'INPUT_NOT_PENDING');
      expect(notAsked.message).toContain(`No question was asked with ${call.stepId}`);
    });

    it('closes a question nobody answers within options.inputTimeoutMs: timed out by the server, and the agent goes on', async () => {
      const target = await factory.open();
      const { b } = ends(target);
      const { sessionId, creator, stepId } = await askingSession(target, { inputTimeoutMs: 1_000 });
      await statusReached(creator, sessionId, 'completed');
      expect(creator.ofType('input.resolved')).toEqual([expect.objectContaining({ stepId, outcome: 'timed_out', by: 'server' })]);
      expect(statusesOf(creator, sessionId)).toEqual(['running', 'waiting', 'running', 'completed']);
      const done = await snapshotOf(b, sessionId);
      const chain = chainOf(done);
      expect(chain[2]).toMatchObject({ kind: 'observation', tool: ASK_USER_TOOL, content: 'The user did not answer in time.', result: { unanswered: true, reason: 'timed out' } });
      expect(chain[3]?.content).toBe(askerAnswer('The user did not answer in time.'));
      expect(stepOf(done, stepId).question).toMatchObject({ state: 'timed_out', by: 'server' });
      const late = await refusal(() => b.provideInput({ sessionId, stepId, text: '5' }), 'INPUT_NOT_PENDING');
      expect(late.message).toContain('timed out');
    });

    it('asks a corrected ask_user call again, as corrected, and the answer goes to the new call', async () => {
      const target = await factory.open();
      const { b } = ends(target);
      const { sessionId, creator, stepId } = await askingSession(target);
      const corrected = { question: 'Which number should 30 replace?', choices: ['20', '5', 'none'] };
      const { newStepId } = await b.correct({ sessionId, stepId, content: JSON.stringify(corrected), by: 'u-fix' });
      const asked = await nextFrame(creator, 'the corrected question', (frame) => frame.type === 'input.requested' && frame.stepId === newStepId);
      expect(asked).toMatchObject({ question: corrected.question, choices: corrected.choices });
      await statusReached(creator, sessionId, 'waiting', 2);
      await refusal(() => b.provideInput({ sessionId, stepId, text: '5' }), 'STEP_INVALIDATED');
      await b.provideInput({ sessionId, stepId: newStepId, text: 'none', by: 'u-fix' });
      await statusReached(creator, sessionId, 'completed');
      const chain = chainOf(await snapshotOf(b, sessionId));
      expect(chain[1]).toMatchObject({ stepId: newStepId, question: { state: 'answered', by: 'u-fix' } });
      expect(chain[2]).toMatchObject({ content: 'none', result: { answer: 'none', by: 'u-fix', choice: 2 } });
    });

    it('lets a sub-agent ask while its sibling runs: the sub-agent waits, the session waits once nothing else works, and the answer lets it finish', async () => {
      const target = await factory.open();
      const { a, b } = ends(target);
      const creator = target.peer('creator');
      const { sessionId } = await a.create({ task: 'question alpha; wait beta', agent: 'delegator', options: { tokenDelayMs: 0 } }, { peer: creator });
      const asked = await nextFrame(creator, 'the sub-agent\'s question', (frame) => frame.type === 'input.requested' && frame.sessionId === sessionId);
      expect(asked).toMatchObject({ question: counterQuestion('question alpha').question });
      const call = stepOf(await snapshotOf(b, sessionId), asked.stepId as string);
      const alpha = call.scope!;
      await nextFrame(creator, 'the asking sub-agent to wait', (frame) => frame.type === 'subagent.status' && frame.scope === alpha && frame.status === 'waiting');
      // Its sibling still works: the session runs.
      expect((await snapshotOf(b, sessionId)).session.status).toBe('running');

      target.gates.of('wait beta').open();
      await statusReached(creator, sessionId, 'waiting');
      const waiting = creator.events(sessionId).filter((event) => event.type === 'session.status').at(-1);
      expect(waiting).toMatchObject({ status: 'waiting', detail: `Waiting for your answer: ${counterQuestion('question alpha').question}` });

      await b.provideInput({ sessionId, stepId: call.stepId, text: 'Carefully.', by: 'u-sub' });
      await statusReached(creator, sessionId, 'completed');
      const done = await snapshotOf(b, sessionId);
      const scoped = done.subagents?.find((info) => info.scope === alpha);
      expect(scoped?.status).toBe('completed');
      const answerStep = scoped!.chain.map((id) => stepOf(done, id)).find((step) => step.kind === 'observation');
      expect(answerStep).toMatchObject({ scope: alpha, tool: ASK_USER_TOOL, content: 'Carefully.', by: 'u-sub' });
      const final = chainOf(done).at(-1)!;
      expect(final.content.startsWith(joinedAnswer([]))).toBe(true);
      expect(final.content).toContain(`${counterAnswer('question alpha', [])}`);
      expect(final.content).toContain('Carefully.');
    });

    it('answers a sub-agent\'s question while its sibling still runs, without stopping the sibling', async () => {
      const target = await factory.open();
      const { a, b } = ends(target);
      const creator = target.peer('creator');
      const { sessionId } = await a.create({ task: 'question alpha; wait beta', agent: 'delegator', options: { tokenDelayMs: 0 } }, { peer: creator });
      const asked = await nextFrame(creator, 'the sub-agent\'s question', (frame) => frame.type === 'input.requested' && frame.sessionId === sessionId);
      const alpha = stepOf(await snapshotOf(b, sessionId), asked.stepId as string).scope!;
      await nextFrame(creator, 'the asking sub-agent to wait', (frame) => frame.type === 'subagent.status' && frame.scope === alpha && frame.status === 'waiting');
      await b.provideInput({ sessionId, stepId: asked.stepId as string, text: 'Quickly.', by: 'u-sub' });
      await nextFrame(creator, 'the asking sub-agent to finish', (frame) => frame.type === 'subagent.status' && frame.scope === alpha && frame.status === 'completed');
      expect(statusesOf(creator, sessionId)).toEqual(['running']);
      target.gates.of('wait beta').open();
      await statusReached(creator, sessionId, 'completed');
      await eventually(async () => (await snapshotOf(b, sessionId)).session.status === 'completed', 'the session to complete everywhere');
      expect(chainOf(await snapshotOf(b, sessionId)).at(-1)?.content).toContain('Quickly.');
    });
  });
}
