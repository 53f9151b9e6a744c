import { createSessionState, applyEvents, type SessionSnapshot } from '@interthought/protocol';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { AgentRunContext } from '@interthought/agent';
import { streamStep } from '../../src/agents/stream-text.js';
import { FIVE_KINDS, TestAgent, scriptBehaviour } from './support/test-agents.js';
import { createHarness, storedEvents, turns, until, untilStatus, type Harness } from './support/harness.js';
import { RecordingPeer } from './support/recording-peer.js';
import { refusal } from './support/refusal.js';

let harness: Harness | undefined;
afterEach(async () => {
  vi.useRealTimers();
  await harness?.manager.shutdown();
  harness = undefined;
});

function setup(options: Parameters<typeof createHarness>[0] = {}): Harness {
  harness = createHarness(options);
  return harness;
}

describe('SessionManager.create', () => {
  it('of two creations of one chosen id at once, runs one and refuses the other with INVALID_STATE', async () => {
    const { manager } = setup();
    const outcomes = await Promise.allSettled([manager.create({ task: 'Add two and three', sessionId: 'thread-1' }), manager.create({ task: 'Add two and three', sessionId: 'thread-1' })]);
    expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1);
    const [refused] = outcomes.filter((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
    expect(refused?.reason).toMatchObject({ code: 'INVALID_STATE', message: expect.stringContaining('exists already') });
    await untilStatus(manager, 'thread-1', 'completed');
  });

  it('starts a session whose first event is session.status running with seq 1', async () => {
    const { manager, store } = setup();
    const info = await manager.create({ task: 'Add two and three' });
    expect(info).toEqual({ sessionId: 'id-1', task: 'Add two and three', agent: 'script', status: 'running', revision: 0, createdAt: '2025-01-01T00:00:00.000Z' });
    await untilStatus(manager, info.sessionId, 'completed');
    const events = await storedEvents(store, info.sessionId);
    expect(events[0]).toMatchObject({ type: 'session.status', seq: 1, status: 'running', sessionId: 'id-1' });
    expect(events.map((event) => event.seq)).toEqual(events.map((_, index) => index + 1));
    expect(events[events.length - 1]).toMatchObject({ type: 'session.status', status: 'completed' });
  });

  it('starts the agent on a later tick, so the creator subscribes before any step', async () => {
    const { manager } = setup();
    const peer = new RecordingPeer();
    const info = await manager.create({ task: 'Add' });
    await manager.subscribe(info.sessionId, { peer, requestId: 'r1' });
    const snapshot = peer.messages[0] as unknown as SessionSnapshot;
    expect(snapshot).toMatchObject({ type: 'session.snapshot', requestId: 'r1', seq: 1, steps: [], chain: [] });
    await untilStatus(manager, info.sessionId, 'completed');
    await turns();
    const live = peer.events(info.sessionId);
    expect(live[0]?.seq).toBe(2);
    const replayed = applyEvents(createSessionState(snapshot), live);
    expect(replayed.steps).toEqual(new Map((await manager.snapshot(info.sessionId))!.steps.map((step) => [step.stepId, step])));
  });

  it('gives the agent the task, the options, the tools and an empty chain', async () => {
    const agent = new TestAgent('recorder', async () => undefined);
    const { manager, tools } = setup({ agents: [agent] });
    await manager.create({ task: 'Remember me', agent: 'recorder', options: { tokenDelayMs: 0, model: 'm1' } });
    await until(() => agent.runs.length === 1, 'the agent to run');
    const context = agent.runs[0]!;
    expect(context.task).toBe('Remember me');
    expect(context.options).toEqual({ tokenDelayMs: 0, model: 'm1' });
    expect(context.chain).toEqual([]);
    // The server's tools, and a `delegate` bound to the run: found, but not offered to an agent that declares no sub-agents.
    expect(context.tools.list()).toEqual(tools.list());
    for (const tool of tools.list()) expect(context.tools.get(tool.name)).toBe(tool);
    expect(context.tools.get('delegate')?.name).toBe('delegate');
    expect(context.signal.aborted).toBe(false);
  });

  it('builds each step on the previous one and completes it with its joined deltas', async () => {
    const { manager, store } = setup();
    const { sessionId } = await manager.create({ task: 'Add' });
    await untilStatus(manager, sessionId, 'completed');
    const snapshot = (await manager.snapshot(sessionId))!;
    expect(snapshot.steps.map((step) => step.kind)).toEqual(['thought', 'action', 'tool_call', 'observation', 'final_answer']);
    const events = await storedEvents(store, sessionId);
    snapshot.steps.forEach((step, index) => {
      expect(step.index).toBe(index);
      expect(step.parentId).toBe(index === 0 ? null : snapshot.steps[index - 1]!.stepId);
      expect(step.status).toBe('completed');
      const deltas = events.flatMap((event) => (event.type === 'step.delta' && event.stepId === step.stepId ? [event.text] : []));
      expect(step.content).toBe(deltas.join(''));
    });
    expect(snapshot.chain).toEqual(snapshot.steps.map((step) => step.stepId));
    expect(snapshot.steps[0]!.content).toBe('I should add two and three.');
    expect(snapshot.steps[2]).toMatchObject({ tool: 'adder', content: '{"a":2,"b":3}' });
    expect(snapshot.steps[3]).toMatchObject({ tool: 'adder', result: { note: 'scripted' } });
    const completed = (await storedEvents(store, sessionId)).filter((event) => event.type === 'step.completed');
    expect(completed.map((event) => event.content)).toEqual(snapshot.steps.map((step) => step.content));
  });

  it('runs the registry\'s default agent when none is named', async () => {
    const { manager } = setup();
    expect((await manager.create({ task: 'x' })).agent).toBe('script');
  });

  it('refuses an unknown agent with AGENT_NOT_FOUND naming the known ones', async () => {
    const { manager } = setup({ agents: [new TestAgent('other', async () => undefined)] });
    const error = await refusal(() => manager.create({ task: 'x', agent: 'gpt-9' }), 'AGENT_NOT_FOUND');
    expect(error.message).toContain('"gpt-9"');
    expect(error.message).toContain('script, other');
  });

  it('refuses an unavailable agent with AGENT_UNAVAILABLE and its reason', async () => {
    const agent = new TestAgent('llm', async () => undefined);
    agent.availabilityNow = { available: false, reason: 'OPENAI_BASE_URL is not set.' };
    const { manager, store } = setup({ agents: [agent] });
    const error = await refusal(() => manager.create({ task: 'x', agent: 'llm' }), 'AGENT_UNAVAILABLE');
    expect(error.message).toContain('OPENAI_BASE_URL is not set.');
    expect((await store.listSessions({ limit: 10 })).sessions).toEqual([]);
  });

  it('refuses a task that is empty and options outside the contract', async () => {
    const { manager } = setup();
    await refusal(() => manager.create({ task: '' }), 'BAD_FRAME');
    const error = await refusal(() => manager.create({ task: 'x', options: { tokenDelayMs: -1 } }), 'BAD_FRAME');
    expect(error.details?.[0]?.path).toEqual(['options', 'tokenDelayMs']);
  });

  it('refuses a session past maxActiveSessions with LIMIT_EXCEEDED until one ends', async () => {
    const held = new TestAgent('held', (context) => new Promise((_resolve, reject) => context.signal.addEventListener('abort', () => reject(context.signal.reason))));
    const { manager } = setup({ agents: [held], maxActiveSessions: 2 });
    const first = await manager.create({ task: 'a', agent: 'held' });
    await manager.create({ task: 'b', agent: 'held' });
    const error = await refusal(() => manager.create({ task: 'c', agent: 'held' }), 'LIMIT_EXCEEDED');
    expect(error.message).toContain('2');
    await manager.cancel(first.sessionId);
    expect((await manager.create({ task: 'c', agent: 'held' })).status).toBe('running');
  });
});

describe('SessionManager: how a run ends', () => {
  it('fails the session with the agent\'s error message', async () => {
    const agent = new TestAgent('broken', async (context) => {
      await streamStep(context.sink, 'thought', 'Thinking hard');
      throw new Error('the model endpoint returned 500');
    });
    const { manager } = setup({ agents: [agent] });
    const { sessionId } = await manager.create({ task: 'x', agent: 'broken' });
    await untilStatus(manager, sessionId, 'failed');
    expect((await manager.snapshot(sessionId))!.session.error).toBe('the model endpoint returned 500');
  });

  it('finishes a step the agent left streaming when its run returns', async () => {
    const agent = new TestAgent('sloppy', async (context) => {
      await context.sink.start('final_answer').write('Forty-two');
    });
    const { manager } = setup({ agents: [agent] });
    const { sessionId } = await manager.create({ task: 'x', agent: 'sloppy' });
    await untilStatus(manager, sessionId, 'completed');
    expect((await manager.snapshot(sessionId))!.steps).toMatchObject([{ kind: 'final_answer', status: 'completed', content: 'Forty-two' }]);
  });

  it('finishes the open step when the agent starts the next one', async () => {
    const agent = new TestAgent('hasty', async (context) => {
      await context.sink.start('thought').write('first');
      await streamStep(context.sink, 'final_answer', 'second');
    });
    const { manager } = setup({ agents: [agent] });
    const { sessionId } = await manager.create({ task: 'x', agent: 'hasty' });
    await untilStatus(manager, sessionId, 'completed');
    expect((await manager.snapshot(sessionId))!.steps.map((step) => [step.status, step.content])).toEqual([
      ['completed', 'first'],
      ['completed', 'second'],
    ]);
  });

  it('refuses writes after the run returned, so a stray write cannot touch the session', async () => {
    let late: Promise<unknown> | undefined;
    const agent = new TestAgent('stray', async (context) => {
      const writer = context.sink.start('final_answer');
      await writer.write('done');
      writer.end();
      late = new Promise<void>((resolve) => setImmediate(resolve))
        .then(() => writer.write('more'))
        .then(
          () => 'written',
          (error: unknown) => error,
        );
    });
    const { manager } = setup({ agents: [agent] });
    const { sessionId } = await manager.create({ task: 'x', agent: 'stray' });
    await untilStatus(manager, sessionId, 'completed');
    await until(() => late !== undefined, 'the stray write');
    expect(String(await late)).toMatch(/run is over/);
    expect((await manager.snapshot(sessionId))!.steps[0]!.content).toBe('done');
  });

  it('fails the run of an agent that starts a step of an unknown kind', async () => {
    const agent = new TestAgent('confused', async (context) => {
      context.sink.start('musing' as never);
    });
    const { manager } = setup({ agents: [agent] });
    const { sessionId } = await manager.create({ task: 'x', agent: 'confused' });
    await untilStatus(manager, sessionId, 'failed');
    expect((await manager.snapshot(sessionId))!.session.error).toContain('Unknown step kind "musing"');
  });

  it('refuses a result that is not JSON', async () => {
    const agent = new TestAgent('odd', async (context) => {
      const writer = context.sink.start('observation', { tool: 'adder' });
      await writer.write('x');
      writer.end({ result: () => 1 });
    });
    const { manager } = setup({ agents: [agent] });
    const { sessionId } = await manager.create({ task: 'x', agent: 'odd' });
    await untilStatus(manager, sessionId, 'failed');
    expect((await manager.snapshot(sessionId))!.session.error).toContain('JSON');
  });

  it('reports a notice as a status detail with the status unchanged, cleared by the next status', async () => {
    let release: () => void = () => undefined;
    const agent = new TestAgent('patient', async (context) => {
      context.sink.notice('rate limited, retrying in 2 s');
      await new Promise<void>((resolve) => {
        release = resolve;
      });
      await streamStep(context.sink, 'final_answer', 'ok');
    });
    const { manager, store } = setup({ agents: [agent] });
    const { sessionId } = await manager.create({ task: 'x', agent: 'patient' });
    await until(async () => (await manager.snapshot(sessionId))!.session.detail !== undefined, 'the notice');
    expect((await manager.snapshot(sessionId))!.session).toMatchObject({ status: 'running', detail: 'rate limited, retrying in 2 s' });
    release();
    await untilStatus(manager, sessionId, 'completed');
    expect((await manager.snapshot(sessionId))!.session.detail).toBeUndefined();
    expect((await storedEvents(store, sessionId))[1]).toMatchObject({ type: 'session.status', status: 'running', detail: 'rate limited, retrying in 2 s' });
    expect((await storedEvents(store, sessionId))[1]).not.toHaveProperty('error');
  });

  it('paces tokens by the session\'s tokenDelayMs', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const { manager } = setup();
    const { sessionId } = await manager.create({ task: 'x', options: { tokenDelayMs: 1000 } });
    const deltas = async () => (await manager.snapshot(sessionId))!.steps[0]?.content ?? '';
    await until(async () => (await deltas()) === 'I ', 'the first token');
    await turns(50);
    expect(await deltas()).toBe('I ');
    await vi.advanceTimersByTimeAsync(1000);
    expect(await deltas()).toBe('I should ');
  });
});

describe('SessionManager.shutdown', () => {
  it('aborts every run, writes what is pending and leaves statuses as they are', async () => {
    const signals: AbortSignal[] = [];
    const held = new TestAgent('held', async (context: AgentRunContext) => {
      signals.push(context.signal);
      const writer = context.sink.start('thought');
      for (;;) await writer.write('tick ');
    });
    const { manager, store } = setup({ agents: [held] });
    const { sessionId } = await manager.create({ task: 'x', agent: 'held' });
    await until(async () => ((await manager.snapshot(sessionId))!.steps[0]?.content.length ?? 0) > 20, 'some tokens');
    await manager.shutdown();
    expect(signals[0]!.aborted).toBe(true);
    const stored = await storedEvents(store, sessionId);
    expect(stored.length).toBe((await manager.snapshot(sessionId))!.seq);
    expect((await store.getSession(sessionId))!.info.status).toBe('running');
    await turns(10);
    expect((await storedEvents(store, sessionId)).length).toBe(stored.length);
    await refusal(() => manager.create({ task: 'y' }), 'INTERNAL');
    await refusal(() => manager.cancel(sessionId), 'INTERNAL');
    expect((await manager.snapshot(sessionId))!.session.status).toBe('running');
  });
});

describe('the default script agent', () => {
  it('is the five-kind script', () => {
    expect(FIVE_KINDS.map((step) => step.kind)).toEqual(['thought', 'action', 'tool_call', 'observation', 'final_answer']);
    expect(typeof scriptBehaviour(FIVE_KINDS)).toBe('function');
  });
});
