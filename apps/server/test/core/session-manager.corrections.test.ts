import type { SessionEvent, Step } from '@interthought/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { Checkpoint, FIVE_KINDS, TestAgent, adderBehaviour, heldBehaviour, scriptBehaviour } from './support/test-agents.js';
import { createHarness, storedEvents, turns, until, untilStatus, type Harness, type HarnessOptions } from './support/harness.js';
import { RecordingPeer } from './support/recording-peer.js';
import { refusal } from './support/refusal.js';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.manager.shutdown();
  harness = undefined;
});

function setup(options: HarnessOptions = {}): Harness {
  harness = createHarness(options);
  return harness;
}

/** A script session run to completion; returns its id and its five steps. */
async function completedSession(h: Harness, agent = 'script'): Promise<{ sessionId: string; steps: Step[] }> {
  const { sessionId } = await h.manager.create({ task: 'Add two and three', agent });
  await untilStatus(h.manager, sessionId, 'completed');
  return { sessionId, steps: (await h.manager.snapshot(sessionId))!.steps };
}

async function eventsAfter(h: Harness, sessionId: string, seq: number): Promise<SessionEvent[]> {
  return (await storedEvents(h.store, sessionId)).filter((event) => event.seq > seq);
}

describe('correct: refusals, in the documented order', () => {
  it('refuses an unknown session with SESSION_NOT_FOUND', async () => {
    const { manager } = setup();
    await refusal(() => manager.correct({ sessionId: 'nope', stepId: 'x', content: 'y' }), 'SESSION_NOT_FOUND');
  });

  it('refuses any correction in a cancelled session with SESSION_CANCELLED', async () => {
    const h = setup();
    const { sessionId } = await h.manager.create({ task: 'Add two and three', agent: 'script', options: { tokenDelayMs: 5 } });
    await until(async () => (await h.manager.snapshot(sessionId))!.steps.length > 0, 'the first step');
    await h.manager.cancel(sessionId);
    const [first] = (await h.manager.snapshot(sessionId))!.steps;
    await refusal(() => h.manager.correct({ sessionId, stepId: first!.stepId, content: 'new' }), 'SESSION_CANCELLED');
    await refusal(() => h.manager.correct({ sessionId, stepId: 'unknown', content: 'new' }), 'SESSION_CANCELLED');
  });

  it('refuses an unknown step with STEP_NOT_FOUND', async () => {
    const h = setup();
    const { sessionId } = await completedSession(h);
    await refusal(() => h.manager.correct({ sessionId, stepId: 'ghost', content: 'new' }), 'STEP_NOT_FOUND');
  });

  it('refuses a correction of an invalidated step with STEP_INVALIDATED', async () => {
    const h = setup();
    const { sessionId, steps } = await completedSession(h);
    await h.manager.correct({ sessionId, stepId: steps[1]!.stepId, content: 'Plan B.' });
    const error = await refusal(() => h.manager.correct({ sessionId, stepId: steps[3]!.stepId, content: 'Other' }), 'STEP_INVALIDATED');
    expect(error.message).toContain(steps[3]!.stepId);
  });

  it('refuses a step that left the chain with STALE_REVISION when the client saw an older revision', async () => {
    const h = setup();
    const { sessionId, steps } = await completedSession(h);
    await h.manager.correct({ sessionId, stepId: steps[1]!.stepId, content: 'Plan B.' });
    const error = await refusal(() => h.manager.correct({ sessionId, stepId: steps[2]!.stepId, content: '{"a":1,"b":1}', baseRevision: 0 }), 'STALE_REVISION');
    expect(error.message).toContain('revision 1');
    await refusal(() => h.manager.correct({ sessionId, stepId: steps[2]!.stepId, content: '{"a":1,"b":1}', baseRevision: 1 }), 'STEP_INVALIDATED');
  });

  it('accepts an old baseRevision while the step is still on the chain', async () => {
    const h = setup();
    const { sessionId, steps } = await completedSession(h);
    await h.manager.correct({ sessionId, stepId: steps[3]!.stepId, content: 'Saw five.' });
    const result = await h.manager.correct({ sessionId, stepId: steps[0]!.stepId, content: 'Think again.', baseRevision: 0 });
    expect(result.revision).toBe(2);
  });

  it('refuses a tool call correction that is not JSON with BAD_CORRECTION and changes nothing', async () => {
    const h = setup();
    const { sessionId, steps } = await completedSession(h);
    const before = (await h.manager.snapshot(sessionId))!;
    const error = await refusal(() => h.manager.correct({ sessionId, stepId: steps[2]!.stepId, content: '{"a": 2,' }), 'BAD_CORRECTION');
    expect(error.message).toMatch(/input of adder must be JSON/);
    expect(error.details).toHaveLength(1);
    await turns();
    expect(await h.manager.snapshot(sessionId)).toEqual(before);
    expect(await storedEvents(h.store, sessionId)).toHaveLength(before.seq);
  });

  it('refuses tool input that fails the tool\'s schema with each issue in details', async () => {
    const h = setup();
    const { sessionId, steps } = await completedSession(h);
    const seq = (await h.manager.snapshot(sessionId))!.seq;
    const error = await refusal(() => h.manager.correct({ sessionId, stepId: steps[2]!.stepId, content: '{"a":"two","b":3,"c":1}' }), 'BAD_CORRECTION');
    expect(error.message).toContain('Invalid input for adder');
    expect(error.details?.map((detail) => detail.path)).toEqual(expect.arrayContaining([['a'], ['c']]));
    expect((await h.manager.snapshot(sessionId))!.seq).toBe(seq);
    expect((await h.manager.snapshot(sessionId))!.session.revision).toBe(0);
  });

  it('refuses empty content and an over-long note with BAD_CORRECTION', async () => {
    const h = setup();
    const { sessionId, steps } = await completedSession(h);
    await refusal(() => h.manager.correct({ sessionId, stepId: steps[0]!.stepId, content: '' }), 'BAD_CORRECTION');
    await refusal(() => h.manager.correct({ sessionId, stepId: steps[0]!.stepId, content: 'ok', note: 'n'.repeat(2_001) }), 'BAD_CORRECTION');
  });

  it('refuses with AGENT_UNAVAILABLE, changing nothing, when the session\'s agent can no longer run', async () => {
    const agent = new TestAgent('llm', scriptBehaviour(FIVE_KINDS));
    const h = setup({ agents: [agent] });
    const { sessionId, steps } = await completedSession(h, 'llm');
    agent.availabilityNow = { available: false, reason: 'no API key' };
    await refusal(() => h.manager.correct({ sessionId, stepId: steps[0]!.stepId, content: 'x' }), 'AGENT_UNAVAILABLE');
    expect((await h.manager.snapshot(sessionId))!.session).toMatchObject({ status: 'completed', revision: 0 });
  });
});

describe('correct: an accepted correction', () => {
  it.each(FIVE_KINDS.map((step, index) => [step.kind, index] as const))('replaces a %s step and regenerates from it', async (kind, index) => {
    const agent = new TestAgent('five', scriptBehaviour(FIVE_KINDS));
    const h = setup({ agents: [agent] });
    const { sessionId, steps } = await completedSession(h, 'five');
    const target = steps[index]!;
    const content = kind === 'tool_call' ? '{"a":20,"b":22}' : `Corrected ${kind}`;
    const seqBefore = (await h.manager.snapshot(sessionId))!.seq;
    const result = await h.manager.correct({ sessionId, stepId: target.stepId, content, note: 'be precise', by: 'conn-7' });
    expect(result).toEqual({ sessionId, stepId: target.stepId, newStepId: expect.any(String), revision: 1 });
    await untilStatus(h.manager, sessionId, 'completed');

    const [corrected, invalidated, running] = await eventsAfter(h, sessionId, seqBefore);
    expect(corrected).toMatchObject({
      type: 'step.corrected',
      revision: 1,
      step: {
        stepId: result.newStepId,
        parentId: target.parentId,
        index: target.index,
        kind,
        status: 'corrected',
        content,
        revision: 1,
        correctionOf: target.stepId,
        correction: { previousContent: target.content, note: 'be precise', by: 'conn-7', at: corrected!.at },
      },
    });
    expect((corrected as { step: Step }).step.tool).toBe(target.tool);
    expect(invalidated).toEqual({
      type: 'steps.invalidated',
      sessionId,
      seq: seqBefore + 2,
      at: expect.any(String),
      stepIds: steps.slice(index).map((step) => step.stepId),
      byStepId: result.newStepId,
      revision: 1,
    });
    expect(running).toMatchObject({ type: 'session.status', status: 'running' });

    const snapshot = (await h.manager.snapshot(sessionId))!;
    expect(snapshot.chain.slice(0, index + 1)).toEqual([...steps.slice(0, index).map((step) => step.stepId), result.newStepId]);
    expect(snapshot.chain).toHaveLength(5);
    for (const old of steps.slice(index)) expect(snapshot.steps.find((step) => step.stepId === old.stepId)!.status).toBe('invalidated');
    const context = agent.runs[1]!;
    expect(context.chain.map((step) => step.stepId)).toEqual(snapshot.chain.slice(0, index + 1));
    expect(context.chain[index]).toMatchObject({ status: 'corrected', content, correction: { note: 'be precise' } });
    if (index < 4) expect(snapshot.steps.find((step) => step.stepId === snapshot.chain[4])!.content).toContain(index === 3 ? content : 'Answer built on');
  });

  it('makes regenerated steps depend on the corrected content', async () => {
    const h = setup();
    const { sessionId, steps } = await completedSession(h);
    await h.manager.correct({ sessionId, stepId: steps[0]!.stepId, content: 'Multiply instead.' });
    await untilStatus(h.manager, sessionId, 'completed');
    const snapshot = (await h.manager.snapshot(sessionId))!;
    const action = snapshot.steps.find((step) => step.stepId === snapshot.chain[1])!;
    expect(action.content).toBe('Plan after "Multiply instead.": call the adder.');
  });

  it('re-runs the tool with the corrected input', async () => {
    const h = setup({ agents: [new TestAgent('adding', adderBehaviour)] });
    const { sessionId, steps } = await completedSession(h, 'adding');
    expect(steps.map((step) => step.content)).toContain('The sum is 5.');
    await h.manager.correct({ sessionId, stepId: steps[1]!.stepId, content: '{"a":40,"b":2}' });
    await untilStatus(h.manager, sessionId, 'completed');
    const snapshot = (await h.manager.snapshot(sessionId))!;
    const chain = snapshot.chain.map((id) => snapshot.steps.find((step) => step.stepId === id)!);
    expect(chain.map((step) => step.kind)).toEqual(['thought', 'tool_call', 'observation', 'final_answer']);
    expect(chain[2]).toMatchObject({ content: '40 + 2 = 42', result: { sum: 42 } });
    expect(chain[3]!.content).toBe('The sum is 42.');
  });

  it('accepts content identical to the current one, to ask for a regeneration', async () => {
    const h = setup();
    const { sessionId, steps } = await completedSession(h);
    const result = await h.manager.correct({ sessionId, stepId: steps[4]!.stepId, content: steps[4]!.content });
    expect(result.revision).toBe(1);
  });

  it('accepts a correction of a corrected step, invalidating the earlier correction', async () => {
    const h = setup();
    const { sessionId, steps } = await completedSession(h);
    const first = await h.manager.correct({ sessionId, stepId: steps[0]!.stepId, content: 'First try.' });
    const second = await h.manager.correct({ sessionId, stepId: first.newStepId, content: 'Second try.' });
    expect(second.revision).toBe(2);
    await untilStatus(h.manager, sessionId, 'completed');
    const snapshot = (await h.manager.snapshot(sessionId))!;
    expect(snapshot.steps.find((step) => step.stepId === first.newStepId)!.status).toBe('invalidated');
    expect(snapshot.chain[0]).toBe(second.newStepId);
    expect(snapshot.steps.find((step) => step.stepId === second.newStepId)!.correction!.previousContent).toBe('First try.');
  });

  it('applies two racing corrections in arrival order: the second loses if the first invalidated its step', async () => {
    const h = setup();
    const { sessionId, steps } = await completedSession(h);
    await h.manager.correct({ sessionId, stepId: steps[1]!.stepId, content: 'Plan B.', baseRevision: 0 });
    await refusal(() => h.manager.correct({ sessionId, stepId: steps[2]!.stepId, content: '{"a":1,"b":1}', baseRevision: 0 }), 'STALE_REVISION');
    await refusal(() => h.manager.correct({ sessionId, stepId: steps[4]!.stepId, content: 'Done.' }), 'STEP_INVALIDATED');
    const earlier = await h.manager.correct({ sessionId, stepId: steps[0]!.stepId, content: 'Rethink.', baseRevision: 0 });
    expect(earlier.revision).toBe(2);
    await untilStatus(h.manager, sessionId, 'completed');
    const snapshot = (await h.manager.snapshot(sessionId))!;
    expect(snapshot.session.revision).toBe(2);
    expect(snapshot.chain[0]).toBe(earlier.newStepId);
  });

  it('makes a completed session run again and complete', async () => {
    const h = setup();
    const { sessionId, steps } = await completedSession(h);
    await h.manager.correct({ sessionId, stepId: steps[3]!.stepId, content: 'Saw six.' });
    expect((await h.manager.snapshot(sessionId))!.session.status).toBe('running');
    await untilStatus(h.manager, sessionId, 'completed');
    expect((await h.store.getSession(sessionId))!.info).toMatchObject({ status: 'completed', revision: 1 });
  });

  it('makes a failed session run again', async () => {
    let runs = 0;
    const flaky = new TestAgent('flaky', async (context) => {
      runs += 1;
      if (runs === 1) {
        await context.sink.start('thought').write('Trying…');
        throw new Error('timeout');
      }
      await scriptBehaviour(FIVE_KINDS)(context);
    });
    const h = setup({ agents: [flaky] });
    const { sessionId } = await h.manager.create({ task: 'x', agent: 'flaky' });
    await untilStatus(h.manager, sessionId, 'failed');
    const [thought] = (await h.manager.snapshot(sessionId))!.steps;
    await h.manager.correct({ sessionId, stepId: thought!.stepId, content: 'Try harder.' });
    await untilStatus(h.manager, sessionId, 'completed');
    expect((await h.manager.snapshot(sessionId))!.session.error).toBeUndefined();
  });
});

describe('correct: while the agent streams', () => {
  it('aborts the run, records the partial text, and the old run emits nothing more', async () => {
    const checkpoint = new Checkpoint();
    const refusals: unknown[] = [];
    const agent = new TestAgent('held', heldBehaviour(checkpoint, refusals));
    const h = setup({ agents: [agent] });
    const peer = new RecordingPeer();
    const { sessionId } = await h.manager.create({ task: 'x', agent: 'held' });
    await h.manager.subscribe(sessionId, { peer });
    await until(() => checkpoint.reached, 'the agent to reach its checkpoint');
    const streaming = (await h.manager.snapshot(sessionId))!.steps[0]!;
    expect(streaming).toMatchObject({ status: 'streaming', content: 'partial text ' });

    const result = await h.manager.correct({ sessionId, stepId: streaming.stepId, content: 'A better thought.' });
    expect(agent.runs[0]!.signal.aborted).toBe(true);
    const correctedSeq = (await h.manager.snapshot(sessionId))!.seq;
    checkpoint.release();
    await untilStatus(h.manager, sessionId, 'completed');

    expect(refusals).toHaveLength(1);
    expect((refusals[0] as DOMException).name).toBe('AbortError');
    const corrected = (await storedEvents(h.store, sessionId)).find((event) => event.type === 'step.corrected');
    expect(corrected).toMatchObject({ step: { correction: { previousContent: 'partial text ' } } });
    const later = await eventsAfter(h, sessionId, correctedSeq);
    expect(later.some((event) => 'stepId' in event && event.stepId === streaming.stepId)).toBe(false);
    expect(later.every((event) => event.type !== 'step.delta' || event.text !== 'more')).toBe(true);
    expect((await h.manager.snapshot(sessionId))!.steps.find((step) => step.stepId === streaming.stepId)!.status).toBe('invalidated');
    expect(agent.runs[1]!.chain.map((step) => step.stepId)).toEqual([result.newStepId]);
    await turns();
    expect(peer.events(sessionId).map((event) => event.seq)).toEqual(
      (await storedEvents(h.store, sessionId))
        .map((event) => event.seq)
        .filter((seq) => seq > 1),
    );
  });

  it('passes the abort down to the tool the agent is running', async () => {
    const agent = new TestAgent('waiting', async (context) => {
      await context.sink.start('tool_call', { tool: 'waiter' }).write('{"label":"x"}');
      await context.tools.get('waiter')!.execute({ label: 'x' }, context.signal);
    });
    const h = setup({ agents: [agent] });
    const { sessionId } = await h.manager.create({ task: 'x', agent: 'waiting' });
    await until(() => h.waiter.signals.length === 1, 'the tool to start');
    const [toolCall] = (await h.manager.snapshot(sessionId))!.steps;
    await h.manager.correct({ sessionId, stepId: toolCall!.stepId, content: '{"label":"y"}' });
    expect(h.waiter.signals[0]!.aborted).toBe(true);
    expect((h.waiter.signals[0]!.reason as DOMException).name).toBe('AbortError');
  });

  it('keeps a paused session paused; its new run waits at its first write until resumed', async () => {
    const h = setup();
    const { sessionId, steps } = await completedSession(h);
    await h.manager.correct({ sessionId, stepId: steps[3]!.stepId, content: 'Saw six.' });
    await h.manager.pause(sessionId);
    const seqBefore = (await h.manager.snapshot(sessionId))!.seq;
    await h.manager.correct({ sessionId, stepId: steps[0]!.stepId, content: 'Think again.' });
    await turns(30);
    const snapshot = (await h.manager.snapshot(sessionId))!;
    expect(snapshot.session.status).toBe('paused');
    const added = await eventsAfter(h, sessionId, seqBefore);
    expect(added.map((event) => event.type)).toEqual(['step.corrected', 'steps.invalidated', 'step.started']);
    await h.manager.resume(sessionId);
    await untilStatus(h.manager, sessionId, 'completed');
    expect((await h.manager.snapshot(sessionId))!.chain).toHaveLength(5);
  });
});
