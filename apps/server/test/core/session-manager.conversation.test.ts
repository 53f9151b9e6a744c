import { describe, expect, it } from 'vitest';
import { alternativesOf, type SessionEvent, type Step } from '@interthought/protocol';
import type { AgentRunContext } from '@interthought/agent';
import { streamStep } from '../../src/agents/stream-text.js';
import { createHarness, fold, storedEvents, turns, until, untilStatus, type Harness } from './support/harness.js';
import { RecordingPeer } from './support/recording-peer.js';
import { refusal } from './support/refusal.js';
import { Checkpoint, TestAgent } from './support/test-agents.js';

/**
 * Answers the latest thing the user said (the task, or the last `user_message`). Its first run
 * can be held mid-thought at `hold`, so a test can send a message while a step streams.
 */
function talker(hold?: Checkpoint): TestAgent {
  return new TestAgent('talk', async (context: AgentRunContext, runIndex: number) => {
    const last = context.chain.at(-1);
    const said = last?.kind === 'user_message' ? last.content : context.task;
    if (runIndex === 0 && hold !== undefined) {
      const writer = context.sink.start('thought');
      await writer.write('thinking ');
      await hold.wait();
      await writer.write('more');
      writer.end();
      await streamStep(context.sink, 'action', 'next step');
    }
    await streamStep(context.sink, 'final_answer', `Answer to: ${said}`);
  });
}

function setup(hold?: Checkpoint): { h: Harness; agent: TestAgent } {
  const agent = talker(hold);
  return { h: createHarness({ agents: [agent] }), agent };
}

async function chainOf(h: Harness, sessionId: string): Promise<Step[]> {
  const snapshot = (await h.manager.snapshot(sessionId))!;
  return snapshot.chain.map((id) => snapshot.steps.find((step) => step.stepId === id)!);
}

const summary = (chain: readonly Step[]): string[] => chain.map((step) => `${step.kind}: ${step.content}`);
const statuses = (events: readonly SessionEvent[]): string[] => events.flatMap((event) => (event.type === 'session.status' ? [event.status] : []));

describe('conversations in the session core', () => {
  it('a follow-up after the answer starts a new turn with the whole chain as context', async () => {
    const { h, agent } = setup();
    const { sessionId } = await h.manager.create({ task: 'What is 15% of 240?', agent: 'talk' });
    await untilStatus(h.manager, sessionId, 'completed');
    const peer = new RecordingPeer();
    await h.manager.subscribe(sessionId, { peer }, (await h.manager.snapshot(sessionId))!.seq);
    peer.clear();

    const result = await h.manager.message({ sessionId, text: 'Add 10 to that.' }, { peer, requestId: 'm1' });
    expect(result).toMatchObject({ sessionId, queued: false });
    await untilStatus(h.manager, sessionId, 'completed');
    expect(peer.messages[0]).toMatchObject({ type: 'message.accepted', requestId: 'm1', stepId: result.stepId, queued: false });
    expect(summary(await chainOf(h, sessionId))).toEqual([
      'final_answer: Answer to: What is 15% of 240?',
      'user_message: Add 10 to that.',
      'final_answer: Answer to: Add 10 to that.',
    ]);
    expect((await chainOf(h, sessionId))[1]!.stepId).toBe(result.stepId);
    expect(agent.runs[1]!.chain.map((step) => step.kind)).toEqual(['final_answer', 'user_message']);
    expect(statuses(peer.events(sessionId))).toEqual(['running', 'completed']);
  });

  it('steer: a message sent while a step streams reaches the chain when that step ends, and the next step answers it', async () => {
    const hold = new Checkpoint();
    const { h, agent } = setup(hold);
    const { sessionId } = await h.manager.create({ task: 'Plan a trip', agent: 'talk' });
    await until(() => hold.reached, 'the agent to stream its thought');
    const queued = await h.manager.message({ sessionId, text: 'Use the 2024 prices.' });
    expect(queued.queued).toBe(true);
    expect((await h.manager.snapshot(sessionId))!.queued).toEqual([expect.objectContaining({ stepId: queued.stepId, mode: 'steer' })]);
    hold.release();
    await untilStatus(h.manager, sessionId, 'completed');
    expect(summary(await chainOf(h, sessionId))).toEqual([
      'thought: thinking more',
      'user_message: Use the 2024 prices.',
      'final_answer: Answer to: Use the 2024 prices.',
    ]);
    expect(agent.runs).toHaveLength(2);
    const events = await storedEvents(h.store, sessionId);
    const at = events.findIndex((event) => event.type === 'step.started' && event.step.stepId === queued.stepId);
    expect(events[at - 1]).toMatchObject({ type: 'step.completed', content: 'thinking more' });
    expect((await h.manager.snapshot(sessionId))!.queued).toBeUndefined();
    expect(statuses(events)).toEqual(['running', 'completed']);
  });

  it('steer between steps goes on the chain at once', async () => {
    const hold = new Checkpoint();
    const agent = new TestAgent('slow', async (context, runIndex) => {
      if (runIndex === 0) {
        await streamStep(context.sink, 'thought', 'First.');
        await hold.wait();
        context.signal.throwIfAborted();
        await streamStep(context.sink, 'final_answer', 'Not reached.');
        return;
      }
      await streamStep(context.sink, 'final_answer', `Steered by: ${context.chain.at(-1)!.content}`);
    });
    const h = createHarness({ agents: [agent] });
    const { sessionId } = await h.manager.create({ task: 't', agent: 'slow' });
    await until(() => hold.reached, 'the agent to wait between steps');
    const result = await h.manager.message({ sessionId, text: 'Go left.' });
    expect(result.queued).toBe(false);
    hold.release();
    await untilStatus(h.manager, sessionId, 'completed');
    expect(summary(await chainOf(h, sessionId))).toEqual(['thought: First.', 'user_message: Go left.', 'final_answer: Steered by: Go left.']);
  });

  it('queue: the message waits for the turn to end, then starts the next turn, with no final status between', async () => {
    const hold = new Checkpoint();
    const { h } = setup(hold);
    const { sessionId } = await h.manager.create({ task: 'Plan a trip', agent: 'talk' });
    await until(() => hold.reached, 'the agent to stream its thought');
    const result = await h.manager.message({ sessionId, text: 'Then book it.', mode: 'queue' });
    expect(result.queued).toBe(true);
    hold.release();
    await until(async () => (await chainOf(h, sessionId)).length === 5, 'both turns');
    await untilStatus(h.manager, sessionId, 'completed');
    expect(summary(await chainOf(h, sessionId))).toEqual([
      'thought: thinking more',
      'action: next step',
      'final_answer: Answer to: Plan a trip',
      'user_message: Then book it.',
      'final_answer: Answer to: Then book it.',
    ]);
    expect(statuses(await storedEvents(h.store, sessionId))).toEqual(['running', 'completed']);
  });

  it('editing a message regenerates from it and keeps the earlier version browsable', async () => {
    const { h } = setup();
    const { sessionId } = await h.manager.create({ task: 'Hello', agent: 'talk' });
    await untilStatus(h.manager, sessionId, 'completed');
    const first = await h.manager.message({ sessionId, text: 'With 15%.' });
    await untilStatus(h.manager, sessionId, 'completed');
    const corrected = await h.manager.correct({ sessionId, stepId: first.stepId, content: 'With 25%.' });
    await until(async () => (await chainOf(h, sessionId)).length === 3 && (await h.manager.snapshot(sessionId))!.session.status === 'completed', 'the regeneration');
    expect(summary(await chainOf(h, sessionId))).toEqual(['final_answer: Answer to: Hello', 'user_message: With 25%.', 'final_answer: Answer to: With 25%.']);
    const state = fold(await storedEvents(h.store, sessionId));
    expect(alternativesOf(state, corrected.newStepId)).toEqual([first.stepId, corrected.newStepId]);
    expect(state.steps.get(first.stepId)).toMatchObject({ status: 'invalidated', content: 'With 15%.' });
  });

  it('fork copies exactly the path to a step, starts idle, and both sessions then evolve independently', async () => {
    const { h } = setup();
    const { sessionId } = await h.manager.create({ task: 'Hello', agent: 'talk' });
    await untilStatus(h.manager, sessionId, 'completed');
    await h.manager.message({ sessionId, text: 'And then?' });
    await untilStatus(h.manager, sessionId, 'completed');
    const source = await chainOf(h, sessionId);
    const before = await h.manager.snapshot(sessionId);

    const peer = new RecordingPeer();
    const fork = await h.manager.fork({ sessionId, stepId: source[1]!.stepId }, { peer, requestId: 'f1' });
    await turns(5);
    expect(peer.messages[0]).toMatchObject({ type: 'session.created', requestId: 'f1', session: { sessionId: fork.sessionId, status: 'idle' } });
    expect(fork).toMatchObject({ task: 'Hello', agent: 'talk', status: 'idle', forkedFrom: { sessionId, stepId: source[1]!.stepId } });
    const copied = await chainOf(h, fork.sessionId);
    expect(summary(copied)).toEqual(summary(source.slice(0, 2)));
    copied.forEach((copy, index) => {
      expect(copy.stepId).not.toBe(source[index]!.stepId);
      expect(copy.copiedFrom).toEqual({ sessionId, stepId: source[index]!.stepId });
    });
    expect(peer.events(fork.sessionId).map((event) => event.type)).toEqual(['session.status', 'steps.copied']);
    expect(await h.manager.snapshot(sessionId)).toEqual(before);

    await h.manager.message({ sessionId: fork.sessionId, text: 'Something else.' });
    await untilStatus(h.manager, fork.sessionId, 'completed');
    expect(summary(await chainOf(h, fork.sessionId)).slice(2)).toEqual(['user_message: Something else.', 'final_answer: Answer to: Something else.']);
    expect(await h.manager.snapshot(sessionId)).toEqual(before);
    await refusal(() => h.manager.fork({ sessionId, stepId: 'nope' }), 'STEP_NOT_FOUND');
    await refusal(() => h.manager.fork({ sessionId: 'nope', stepId: 'nope' }), 'SESSION_NOT_FOUND');
  });

  it('cancel puts waiting messages on the chain without a run; a later message starts a turn on the cancelled session', async () => {
    const hold = new Checkpoint();
    const { h } = setup(hold);
    const { sessionId } = await h.manager.create({ task: 'Plan a trip', agent: 'talk' });
    await until(() => hold.reached, 'the agent to stream its thought');
    await h.manager.message({ sessionId, text: 'Cheaper, please.', mode: 'queue' });
    await h.manager.cancel(sessionId);
    hold.release();
    await turns(10);
    expect(summary(await chainOf(h, sessionId))).toEqual(['thought: thinking ', 'user_message: Cheaper, please.']);
    expect((await h.manager.snapshot(sessionId))!.session.status).toBe('cancelled');
    await h.manager.message({ sessionId, text: 'Go on.' });
    await untilStatus(h.manager, sessionId, 'completed');
    expect(summary(await chainOf(h, sessionId)).slice(-2)).toEqual(['user_message: Go on.', 'final_answer: Answer to: Go on.']);
  });

  it('queued messages are events: they survive a restart and reach the chain when the session is resumed', async () => {
    const hold = new Checkpoint();
    const { h } = setup(hold);
    const { sessionId } = await h.manager.create({ task: 'Plan a trip', agent: 'talk' });
    await until(() => hold.reached, 'the agent to stream its thought');
    const queued = await h.manager.message({ sessionId, text: 'Use trains.' });
    // The process stops with the thought half-streamed (its run is aborted and lets go).
    const stopped = h.manager.shutdown();
    hold.release();
    await stopped;
    const next = h.restart({ agents: [talker()] });
    await next.manager.ready;
    expect((await next.manager.snapshot(sessionId))!).toMatchObject({ session: { status: 'interrupted' }, queued: [expect.objectContaining({ stepId: queued.stepId })] });
    await next.manager.resume(sessionId);
    await untilStatus(next.manager, sessionId, 'completed');
    expect(summary(await chainOf(next, sessionId))).toEqual(['thought: thinking ', 'user_message: Use trains.', 'final_answer: Answer to: Use trains.']);
  });

  it('refuses a message while a tool call waits for approval, and bad messages', async () => {
    const { h } = setup();
    const { sessionId } = await h.manager.create({ task: 'Add', options: { approve: 'all' } });
    await untilStatus(h.manager, sessionId, 'waiting');
    const refused = await refusal(() => h.manager.message({ sessionId, text: 'Hurry.' }), 'INVALID_STATE');
    expect(refused.message).toContain('approve or reject it first');
    await refusal(() => h.manager.message({ sessionId, text: '' }), 'BAD_FRAME');
    await refusal(() => h.manager.message({ sessionId, text: 'x', mode: 'later' as 'queue' }), 'BAD_FRAME');
    await refusal(() => h.manager.message({ sessionId: 'nope', text: 'x' }), 'SESSION_NOT_FOUND');
  });
});
