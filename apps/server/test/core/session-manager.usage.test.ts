import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SessionSnapshotData, Step } from '@interthought/protocol';
import { AgentRegistry } from '@interthought/agent';
import { createDemoAgent } from '../../src/agents/demo/index.js';
import { createOpenAIAgent } from '../../src/agents/openai/index.js';
import type { ModelPrice } from '../../src/core/run/model-prices.js';
import { SessionManager, type SessionManagerDeps } from '../../src/core/session-manager.js';
import { ServerMetrics } from '../../src/metrics/server-metrics.js';
import { MemoryEventStore } from '../../src/store/memory-event-store.js';
import { openSqliteEventStore } from '../../src/store/sqlite-event-store.js';
import { FakeOpenAIServer } from '../agents/openai/support/fake-openai-server.js';
import { testEnv } from '../agents/openai/support/run-context.js';
import { createTestTools } from '../agents/openai/support/test-tools.js';
import { answerTurn, content, reasoning, toolCall, toolTurn, usage, withUsage } from '../agents/openai/support/wire.js';
import { fold, until, untilStatus } from './support/harness.js';
import { RecordingPeer } from './support/recording-peer.js';
import { refusal } from './support/refusal.js';

// Usage, cost and budgets (PROTOCOL.md §22) in the real session core, with the openai agent
// against a fake endpoint that reports usage as OpenAI does.
let fake: FakeOpenAIServer;
const managers: SessionManager[] = [];
const closers: Array<() => Promise<void>> = [];

beforeEach(async () => {
  fake = await FakeOpenAIServer.start();
});
afterEach(async () => {
  for (const manager of managers.splice(0)) await manager.shutdown();
  for (const close of closers.splice(0)) await close();
  await fake.close();
});

/** $2 per million input tokens, $0.50 cached, $10 output. */
const PRICE: ModelPrice = { input: 2, output: 10, cached: 0.5 };

function startManager(deps: Partial<Omit<SessionManagerDeps, 'agents' | 'tools'>> = {}): SessionManager {
  const manager = new SessionManager({
    store: new MemoryEventStore(),
    agents: new AgentRegistry('openai').register(createOpenAIAgent(testEnv(fake.baseURL))).register(createDemoAgent()),
    tools: createTestTools().tools,
    ...deps,
  });
  managers.push(manager);
  return manager;
}

/** A tool call (with reasoning) reported as 1,000 in (600 cached) and 100 out, then the answer as 1,200 in and 20 out. */
function twoPricedCalls(): void {
  fake.reply(
    withUsage(toolTurn(...reasoning('Add them.'), ...toolCall(0, 'call_1', 'add', '{"a":2,"b":3}')), usage(1000, 100, { cached: 600, reasoning: 30 })),
    withUsage(answerTurn(...content('It is 5.')), usage(1200, 20)),
  );
}

async function snapshotOf(manager: SessionManager, sessionId: string): Promise<SessionSnapshotData> {
  return (await manager.snapshot(sessionId))!;
}

const stepOf = (snapshot: SessionSnapshotData, kind: Step['kind']): Step => snapshot.steps.find((step) => step.kind === kind)!;

describe('usage totals', () => {
  it("counts every model call's tokens and cost in the server's metrics (GET /api/metrics)", async () => {
    const manager = startManager({ prices: new Map([['test-model', PRICE]]) });
    const metrics = new ServerMetrics(manager);
    twoPricedCalls();
    const { sessionId } = await manager.create({ task: 'What is 2 + 3?', agent: 'openai' });
    await untilStatus(manager, sessionId, 'completed');
    expect(manager.stats.usage).toMatchObject({ modelCalls: 2, inputTokens: 2200, outputTokens: 120, cachedTokens: 600, reasoningTokens: 30, costUsd: expect.closeTo(0.0047, 12) });
    const text = metrics.registry.render();
    for (const line of ['interthought_model_calls_total 2', 'interthought_input_tokens_total 2200', 'interthought_output_tokens_total 120', 'interthought_cached_tokens_total 600', 'interthought_reasoning_tokens_total 30']) {
      expect(text.split('\n')).toContain(line);
    }
    expect(Number(/^interthought_cost_usd_total (\S+)$/m.exec(text)?.[1])).toBeCloseTo(0.0047, 12);
  });

  it('adds every call up in the snapshot, the list and a replay alike, and puts each call on its last step', async () => {
    const manager = startManager({ prices: new Map([['test-model', PRICE]]) });
    twoPricedCalls();
    const { sessionId } = await manager.create({ task: 'What is 2 + 3?', agent: 'openai' });
    await untilStatus(manager, sessionId, 'completed');

    const snapshot = await snapshotOf(manager, sessionId);
    // (400 × 2 + 600 × 0.5 + 100 × 10) / 1e6 and (1,200 × 2 + 20 × 10) / 1e6
    expect(snapshot.session.usage).toEqual({ inputTokens: 2200, outputTokens: 120, reasoningTokens: 30, cachedTokens: 600, costUsd: expect.closeTo(0.0047, 12), calls: 2 });
    expect(stepOf(snapshot, 'thought').usage).toBeUndefined();
    expect(stepOf(snapshot, 'tool_call').usage).toEqual({
      model: 'test-model',
      inputTokens: 1000,
      outputTokens: 100,
      reasoningTokens: 30,
      cachedTokens: 600,
      costUsd: expect.closeTo(0.0021, 12),
      timeToFirstTokenMs: expect.any(Number),
      durationMs: expect.any(Number),
    });
    expect(stepOf(snapshot, 'observation').usage).toBeUndefined();
    expect(stepOf(snapshot, 'final_answer').usage).toMatchObject({ inputTokens: 1200, outputTokens: 20, costUsd: expect.closeTo(0.0026, 12) });

    const [listed] = (await manager.list({ limit: 10 })).sessions;
    expect(listed!.usage).toEqual(snapshot.session.usage);

    const peer = new RecordingPeer();
    await manager.subscribe(sessionId, { peer }, 0);
    const replayed = fold(peer.events(sessionId));
    expect(replayed.session.usage).toEqual(snapshot.session.usage);
    expect(replayed.steps.get(stepOf(snapshot, 'tool_call').stepId)!.usage).toEqual(stepOf(snapshot, 'tool_call').usage);
    const records = peer.events(sessionId).filter((event) => event.type === 'usage.recorded');
    expect(records.map((event) => event.stepIds)).toEqual([
      [stepOf(snapshot, 'thought').stepId, stepOf(snapshot, 'tool_call').stepId],
      [stepOf(snapshot, 'final_answer').stepId],
    ]);
  });

  it('tells list watchers of the new totals', async () => {
    const manager = startManager();
    const watcher = new RecordingPeer('watcher');
    await manager.watchList({ peer: watcher }, 10);
    fake.reply(withUsage(answerTurn(...content('5')), usage(30, 2)));
    const { sessionId } = await manager.create({ task: 'What is 2 + 3?', agent: 'openai' });
    await untilStatus(manager, sessionId, 'completed');
    await until(() => watcher.ofType('sessions.changed').some((frame) => (frame.session as { usage?: unknown }).usage !== undefined), 'a list push with usage');
    const last = watcher.ofType('sessions.changed').at(-1)!.session as { usage?: unknown };
    expect(last.usage).toEqual({ inputTokens: 30, outputTokens: 2, cachedTokens: 0, reasoningTokens: 0, calls: 1 });
  });

  it('records tokens only for a model without a price', async () => {
    const manager = startManager({ prices: new Map([['test-model', PRICE]]) });
    fake.reply(withUsage(answerTurn(...content('5')), usage(10, 2)));
    const { sessionId } = await manager.create({ task: 'What is 2 + 3?', agent: 'openai', options: { model: 'unpriced-model' } });
    await untilStatus(manager, sessionId, 'completed');
    const snapshot = await snapshotOf(manager, sessionId);
    expect(snapshot.session.usage).toEqual({ inputTokens: 10, outputTokens: 2, cachedTokens: 0, reasoningTokens: 0, calls: 1 });
    expect(stepOf(snapshot, 'final_answer').usage).toMatchObject({ model: 'unpriced-model' });
    expect(stepOf(snapshot, 'final_answer').usage).not.toHaveProperty('costUsd');
  });

  it('records nothing when the endpoint reports no usage, and nothing for the demo agent', async () => {
    const manager = startManager();
    fake.reply(answerTurn(...content('5')));
    const llm = await manager.create({ task: 'What is 2 + 3?', agent: 'openai' });
    const demo = await manager.create({ task: 'What is 15% of 240?', agent: 'demo', options: { tokenDelayMs: 0 } });
    await untilStatus(manager, llm.sessionId, 'completed');
    await untilStatus(manager, demo.sessionId, 'completed');
    for (const { sessionId } of [llm, demo]) {
      const snapshot = await snapshotOf(manager, sessionId);
      expect(snapshot.session).not.toHaveProperty('usage');
      expect(snapshot.steps.filter((step) => step.usage !== undefined)).toEqual([]);
    }
  });

  it('keeps counting the calls of steps a correction invalidated', async () => {
    const manager = startManager();
    twoPricedCalls();
    const { sessionId } = await manager.create({ task: 'What is 2 + 3?', agent: 'openai' });
    await untilStatus(manager, sessionId, 'completed');
    const answer = stepOf(await snapshotOf(manager, sessionId), 'final_answer');
    // A corrected final answer stands: the agent calls no model again.
    await manager.correct({ sessionId, stepId: answer.stepId, content: 'Five.' });
    await untilStatus(manager, sessionId, 'completed');
    const snapshot = await snapshotOf(manager, sessionId);
    expect(snapshot.steps.find((step) => step.stepId === answer.stepId)).toMatchObject({ status: 'invalidated', usage: { inputTokens: 1200 } });
    expect(snapshot.session.usage).toMatchObject({ inputTokens: 2200, outputTokens: 120, calls: 2 });
    expect(fake.requests).toHaveLength(2);
  });

  it('gives a fork no usage: the source paid for the steps it copies', async () => {
    const manager = startManager();
    twoPricedCalls();
    const { sessionId } = await manager.create({ task: 'What is 2 + 3?', agent: 'openai' });
    await untilStatus(manager, sessionId, 'completed');
    const fork = await manager.fork({ sessionId, stepId: stepOf(await snapshotOf(manager, sessionId), 'final_answer').stepId });
    await untilStatus(manager, fork.sessionId, 'idle');
    const copied = await snapshotOf(manager, fork.sessionId);
    expect(copied.steps).toHaveLength(4);
    expect(copied.steps.filter((step) => step.usage !== undefined)).toEqual([]);
    expect(copied.session).not.toHaveProperty('usage');
  });
});

describe('token budgets', () => {
  it('stops a session whose tokens reach options.maxTokens, failed with failure "budget", before its tool runs', async () => {
    const manager = startManager();
    fake.reply(withUsage(toolTurn(...toolCall(0, 'call_1', 'add', '{"a":2,"b":3}')), usage(900, 150)));
    const { sessionId } = await manager.create({ task: 'What is 2 + 3?', agent: 'openai', options: { maxTokens: 1000 } });
    await untilStatus(manager, sessionId, 'failed');
    const snapshot = await snapshotOf(manager, sessionId);
    expect(snapshot.session).toMatchObject({ status: 'failed', failure: 'budget', usage: { inputTokens: 900, outputTokens: 150 } });
    expect(snapshot.session.error).toBe('Token budget spent: 1,050 of 1,000 tokens used. Fork the session to go on, or have its budget raised.');
    expect(snapshot.steps.map((step) => step.kind)).toEqual(['tool_call']);
    expect(fake.requests).toHaveLength(1);
  });

  it('refuses what would start a run on it with BUDGET_EXCEEDED, and lets it be forked', async () => {
    const manager = startManager();
    fake.reply(withUsage(answerTurn(...content('5')), usage(600, 10)));
    const { sessionId } = await manager.create({ task: 'What is 2 + 3?', agent: 'openai', options: { maxTokens: 500 } });
    await untilStatus(manager, sessionId, 'failed');
    const answer = stepOf(await snapshotOf(manager, sessionId), 'final_answer');
    const refused = await refusal(() => manager.correct({ sessionId, stepId: answer.stepId, content: 'Five.' }), 'BUDGET_EXCEEDED');
    expect(refused.message).toBe(`Session ${sessionId} used 610 tokens of its budget of 500, so nothing more runs on it: fork it or start a new session, or have the budget raised.`);
    await refusal(() => manager.message({ sessionId, text: 'And 2 + 4?' }), 'BUDGET_EXCEEDED');
    const before = await snapshotOf(manager, sessionId);
    const fork = await manager.fork({ sessionId, stepId: answer.stepId });
    expect(fork.status).toBe('idle');
    expect((await snapshotOf(manager, sessionId)).seq).toBe(before.seq);
  });

  it("caps a session's own budget with the server's (INTERTHOUGHT_MAX_TOKENS_PER_SESSION)", async () => {
    const manager = startManager({ maxTokensPerSession: 500 });
    fake.reply(withUsage(answerTurn(...content('5')), usage(400, 100)), withUsage(answerTurn(...content('6')), usage(300, 10)));
    const capped = await manager.create({ task: 'What is 2 + 3?', agent: 'openai', options: { maxTokens: 10_000 } });
    await untilStatus(manager, capped.sessionId, 'failed');
    expect((await snapshotOf(manager, capped.sessionId)).session.failure).toBe('budget');
    const under = await manager.create({ task: 'What is 2 + 4?', agent: 'openai' });
    await untilStatus(manager, under.sessionId, 'completed');
  });

  it('stops a session waiting for an approval when the call that asked reaches the budget', async () => {
    const manager = startManager();
    fake.reply(withUsage(toolTurn(...toolCall(0, 'call_1', 'add', '{"a":2,"b":3}')), usage(90, 20)));
    const { sessionId } = await manager.create({ task: 'What is 2 + 3?', agent: 'openai', options: { approve: 'all', maxTokens: 100 } });
    await untilStatus(manager, sessionId, 'failed');
    const peer = new RecordingPeer();
    await manager.subscribe(sessionId, { peer }, 0);
    const types = peer.events(sessionId).map((event) => (event.type === 'session.status' ? `status:${event.status}` : event.type));
    expect(types.slice(-5)).toEqual(['step.completed', 'approval.requested', 'status:waiting', 'usage.recorded', 'status:failed']);
    const call = stepOf(await snapshotOf(manager, sessionId), 'tool_call');
    await refusal(() => manager.approve({ sessionId, stepId: call.stepId }), 'APPROVAL_NOT_PENDING');
  });
});

describe('usage across a restart (SQLite)', () => {
  let directory: string;
  beforeEach(() => {
    directory = mkdtempSync(join(tmpdir(), 'interthought-usage-'));
  });
  afterEach(() => {
    rmSync(directory, { recursive: true, force: true });
  });

  /** A process: a session core on the SQLite file; `stop` shuts it down and closes the file, as a restart does. */
  function startOnFile(deps: Partial<Omit<SessionManagerDeps, 'agents' | 'tools' | 'store'>> = {}): { manager: SessionManager; stop(): Promise<void> } {
    const store = openSqliteEventStore(join(directory, 'sessions.db'));
    const close = (): Promise<void> => store.close();
    closers.push(close);
    const manager = startManager({ ...deps, store });
    return {
      manager,
      async stop(): Promise<void> {
        await manager.shutdown();
        managers.splice(managers.indexOf(manager), 1);
        await close();
        closers.splice(closers.indexOf(close), 1);
      },
    };
  }

  it('keeps the totals, counted once, in the snapshot and the list', async () => {
    const first = startOnFile({ prices: new Map([['test-model', PRICE]]) });
    twoPricedCalls();
    const { sessionId } = await first.manager.create({ task: 'What is 2 + 3?', agent: 'openai' });
    await untilStatus(first.manager, sessionId, 'completed');
    const before = await snapshotOf(first.manager, sessionId);
    await first.stop();

    const second = startOnFile().manager;
    await second.ready;
    const [listed] = (await second.list({ limit: 10 })).sessions;
    expect(listed!.usage).toEqual(before.session.usage);
    const after = await snapshotOf(second, sessionId);
    expect(after.session.usage).toEqual(before.session.usage);
    expect(after.steps).toEqual(before.steps);
  });

  it('refuses a session over its budget after a restart, until the server budget is raised', async () => {
    const first = startOnFile({ maxTokensPerSession: 100 });
    fake.reply(withUsage(answerTurn(...content('5')), usage(100, 5)));
    const { sessionId } = await first.manager.create({ task: 'What is 2 + 3?', agent: 'openai' });
    await untilStatus(first.manager, sessionId, 'failed');
    await first.stop();

    const second = startOnFile({ maxTokensPerSession: 100 });
    const answer = stepOf(await snapshotOf(second.manager, sessionId), 'final_answer');
    await refusal(() => second.manager.correct({ sessionId, stepId: answer.stepId, content: 'Five.' }), 'BUDGET_EXCEEDED');
    await second.stop();

    const raised = startOnFile({ maxTokensPerSession: 10_000 }).manager;
    await raised.correct({ sessionId, stepId: answer.stepId, content: 'Five.' });
    await untilStatus(raised, sessionId, 'completed');
    const snapshot = await snapshotOf(raised, sessionId);
    expect(snapshot.session).not.toHaveProperty('failure');
    expect(snapshot.session.usage).toMatchObject({ inputTokens: 100, outputTokens: 5, calls: 1 });
  });
});
