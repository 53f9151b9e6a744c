import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Step } from '@interthought/protocol';
import { AgentRegistry } from '@interthought/agent';
import { createOpenAIAgent } from '../../../src/agents/openai/index.js';
import { SessionManager } from '../../../src/core/session-manager.js';
import { MemoryEventStore } from '../../../src/store/memory-event-store.js';
import { until, untilStatus } from '../../core/support/harness.js';
import { FakeOpenAIServer } from './support/fake-openai-server.js';
import { testEnv } from './support/run-context.js';
import { createTestTools, type ToolInvocation } from './support/test-tools.js';
import { answerTurn, content, toolCall, toolTurn } from './support/wire.js';

// The `openai` agent in the real session core, against a fake endpoint that speaks the
// chat-completions wire format: a call that waits for approval reaches the model's history
// only as what the user decided.
let fake: FakeOpenAIServer;
let manager: SessionManager | undefined;
let invocations: ToolInvocation[];

beforeEach(async () => {
  fake = await FakeOpenAIServer.start();
  const testTools = createTestTools();
  invocations = testTools.invocations;
  manager = new SessionManager({
    store: new MemoryEventStore(),
    agents: new AgentRegistry('openai').register(createOpenAIAgent(testEnv(fake.baseURL))),
    tools: testTools.tools,
  });
});
afterEach(async () => {
  await manager?.shutdown();
  await fake.close();
});

/** Start a session whose model proposes `add(2, 3)`, and wait until the call waits for approval. */
async function proposedAdd(): Promise<{ sessionId: string; call: Step }> {
  fake.reply(toolTurn(...content('Adding.'), ...toolCall(0, 'call_x', 'add', '{"a":2,', '"b":3}')));
  const { sessionId } = await manager!.create({ task: 'What is 2 + 3?', options: { approve: 'all' } });
  await untilStatus(manager!, sessionId, 'waiting');
  const snapshot = (await manager!.snapshot(sessionId))!;
  const call = snapshot.steps.find((step) => step.stepId === snapshot.chain.at(-1))!;
  expect(call).toMatchObject({ kind: 'tool_call', tool: 'add', approval: { state: 'pending' } });
  expect(fake.requests).toHaveLength(1);
  return { sessionId, call };
}

async function finished(sessionId: string): Promise<Step[]> {
  await until(async () => (await manager!.snapshot(sessionId))!.session.status === 'completed', 'the session to complete');
  const snapshot = (await manager!.snapshot(sessionId))!;
  return snapshot.chain.map((id) => snapshot.steps.find((step) => step.stepId === id)!);
}

/** The `tool` messages of the model request `n`. */
function toolMessagesOf(n: number): unknown[] {
  return fake.requests[n]!.body.messages.filter((message: { role: string }) => message.role === 'tool');
}

describe('openai agent with approvals', () => {
  it('approve: the tool runs with the proposed input and the model gets its result', async () => {
    const { sessionId, call } = await proposedAdd();
    expect(invocations).toEqual([]);
    fake.reply(answerTurn(...content('It is 5.')));
    await manager!.approve({ sessionId, stepId: call.stepId, by: 'conn-a' });
    const chain = await finished(sessionId);
    expect(invocations).toEqual([{ tool: 'add', input: { a: 2, b: 3 } }]);
    expect(toolMessagesOf(1)).toEqual([{ role: 'tool', tool_call_id: expect.any(String), content: '2 + 3 = 5' }]);
    expect(chain.map((step) => step.kind).slice(-3)).toEqual(['tool_call', 'observation', 'final_answer']);
    expect(chain.at(-1)!.content).toBe('It is 5.');
  });

  it('reject: the tool never runs and the model gets the refusal, with the reason, as the tool result', async () => {
    const { sessionId, call } = await proposedAdd();
    fake.reply(answerTurn(...content('Understood, I will not add.')));
    await manager!.reject({ sessionId, stepId: call.stepId, by: 'conn-b', reason: 'Do it by hand.' });
    const chain = await finished(sessionId);
    expect(invocations).toEqual([]);
    const [refusal] = toolMessagesOf(1) as Array<{ content: string }>;
    expect(refusal!.content).toContain('The user refused this add call, so it was not run.');
    expect(refusal!.content).toContain('Reason: Do it by hand.');
    expect(chain.at(-2)).toMatchObject({ kind: 'observation', result: { refused: true, by: 'conn-b', reason: 'Do it by hand.' } });
    expect(chain.at(-1)!.content).toBe('Understood, I will not add.');
  });

  it('edit: the corrected call runs, and the model sees the edit and its result', async () => {
    const { sessionId, call } = await proposedAdd();
    fake.reply(answerTurn(...content('It is 15.')));
    await manager!.correct({ sessionId, stepId: call.stepId, content: '{"a":10,"b":5}', by: 'conn-c' });
    const chain = await finished(sessionId);
    expect(invocations).toEqual([{ tool: 'add', input: { a: 10, b: 5 } }]);
    expect(toolMessagesOf(1)).toEqual([{ role: 'tool', tool_call_id: expect.any(String), content: '10 + 5 = 15' }]);
    expect(JSON.stringify(fake.requests[1]!.body.messages)).toContain('The user corrected the input of your add call');
    expect(chain.find((step) => step.correctionOf === call.stepId)).toMatchObject({ approval: { state: 'edited', by: 'conn-c' } });
  });

  it('a list policy lets the other tools run at once', async () => {
    fake.reply(toolTurn(...toolCall(0, 'call_y', 'add', '{"a":1,"b":1}')), answerTurn(...content('2')));
    const { sessionId } = await manager!.create({ task: 'What is 1 + 1?', options: { approve: ['capital'] } });
    const chain = await finished(sessionId);
    expect(invocations).toEqual([{ tool: 'add', input: { a: 1, b: 1 } }]);
    expect(chain.some((step) => step.approval !== undefined)).toBe(false);
  });
});
