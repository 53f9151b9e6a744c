import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ASK_USER_TOOL, type Step } from '@interthought/protocol';
import { AgentRegistry, type Agent } from '@interthought/agent';
import { openAIEntryAgent } from '../../../src/agents/catalog/openai-entry.js';
import { createOpenAIAgent } from '../../../src/agents/openai/index.js';
import { SessionManager } from '../../../src/core/session-manager.js';
import { MemoryEventStore } from '../../../src/store/memory-event-store.js';
import { until, untilStatus } from '../../core/support/harness.js';
import { FakeOpenAIServer } from './support/fake-openai-server.js';
import { testEnv, testRun } from './support/run-context.js';
import { createTestTools, type ToolInvocation } from './support/test-tools.js';
import { answerTurn, content, toolCall, toolTurn } from './support/wire.js';

// The `openai` agent asking the user (PROTOCOL.md §25.1, §25.6) in the real session core, against a
// fake endpoint that speaks the chat-completions wire format: the model is offered ask_user, its
// call is the step the session waits at, and the answer reaches the model as that call's tool result.
let fake: FakeOpenAIServer;
let manager: SessionManager | undefined;
let invocations: ToolInvocation[];

function start(agent: (baseURL: string) => Agent): void {
  const testTools = createTestTools();
  invocations = testTools.invocations;
  // The test registry (add, capital) holds no ask_user: the agent offers it all the same.
  manager = new SessionManager({ store: new MemoryEventStore(), agents: new AgentRegistry(agent(fake.baseURL).name).register(agent(fake.baseURL)), tools: testTools.tools });
}

beforeEach(async () => {
  fake = await FakeOpenAIServer.start();
});
afterEach(async () => {
  await manager?.shutdown();
  manager = undefined;
  await fake.close();
});

const QUESTION = '{"question":"Which country do you mean?","choices":["France","Japan"]}';

async function chainOf(sessionId: string): Promise<Step[]> {
  const snapshot = (await manager!.snapshot(sessionId))!;
  return snapshot.chain.map((id) => snapshot.steps.find((step) => step.stepId === id)!);
}

/** Start a session whose model asks QUESTION, and wait until the session waits for the answer. */
async function asking(options: { inputTimeoutMs?: number } = {}): Promise<{ sessionId: string; call: Step }> {
  fake.reply(toolTurn(...content('I need to know which country.'), ...toolCall(0, 'call_q', ASK_USER_TOOL, '{"question":"Which country do you mean?",', '"choices":["France","Japan"]}')));
  const { sessionId } = await manager!.create({ task: 'What is the capital?', options });
  await untilStatus(manager!, sessionId, 'waiting');
  const call = (await chainOf(sessionId)).at(-1)!;
  expect(call).toMatchObject({ kind: 'tool_call', tool: ASK_USER_TOOL, content: QUESTION, question: { state: 'pending' } });
  return { sessionId, call };
}

/** `turns`: how long to let the event loop turn (a timeout needs real time, many turns). */
async function finished(sessionId: string, turns?: number): Promise<Step[]> {
  await until(async () => (await manager!.snapshot(sessionId))!.session.status === 'completed', 'the session to complete', turns);
  return chainOf(sessionId);
}

/** The names of the tools offered in model request `n`. */
function offeredIn(n: number): string[] {
  return fake.requests[n]!.body.tools.map((tool: { function: { name: string } }) => tool.function.name);
}

/** The `tool` messages of model request `n`. */
function toolMessagesOf(n: number): Array<{ role: string; tool_call_id: string; content: string }> {
  return fake.requests[n]!.body.messages.filter((message: { role: string }) => message.role === 'tool');
}

describe('openai agent asking the user', () => {
  it('offers ask_user, waits at its call, and continues with the answer as the tool result', async () => {
    start((baseURL) => createOpenAIAgent(testEnv(baseURL)));
    const { sessionId, call } = await asking();
    expect(offeredIn(0)).toEqual(['add', 'capital', ASK_USER_TOOL]);
    // Nothing runs and nobody asks the model while the question waits.
    expect(fake.requests).toHaveLength(1);
    expect(invocations).toEqual([]);

    fake.reply(toolTurn(...toolCall(0, 'call_c', 'capital', '{"country":"Japan"}')), answerTurn(...content('The capital is Tokyo.')));
    await manager!.provideInput({ sessionId, stepId: call.stepId, text: 'Japan', by: 'conn-a' });
    const chain = await finished(sessionId);

    // The NEXT request carries the answer as the ask_user call's tool result, paired with that call.
    const [answer] = toolMessagesOf(1);
    expect(answer).toEqual({ role: 'tool', tool_call_id: `call_${call.stepId}`, content: 'Japan' });
    const assistant = fake.requests[1]!.body.messages.find((message: { role: string; tool_calls?: unknown[] }) => message.role === 'assistant' && message.tool_calls);
    expect(assistant.tool_calls).toEqual([{ id: `call_${call.stepId}`, type: 'function', function: { name: ASK_USER_TOOL, arguments: QUESTION } }]);
    expect(offeredIn(1)).toContain(ASK_USER_TOOL);
    expect(invocations).toEqual([{ tool: 'capital', input: { country: 'Japan' } }]);
    expect(chain.map((step) => [step.kind, step.tool ?? null])).toEqual([
      ['action', null],
      ['tool_call', ASK_USER_TOOL],
      ['observation', ASK_USER_TOOL],
      ['tool_call', 'capital'],
      ['observation', 'capital'],
      ['final_answer', null],
    ]);
    expect(chain[2]).toMatchObject({ content: 'Japan', result: { answer: 'Japan', by: 'conn-a', choice: 1 } });
    expect(chain.at(-1)!.content).toBe('The capital is Tokyo.');
  });

  it('offers ask_user to a catalogue agent whose tool list does not name it, and waits at its call', async () => {
    start((baseURL) => openAIEntryAgent('picky', { type: 'openai', baseURL, model: 'picky-1', tools: ['add'], retry: { baseDelayMs: 5 }, timeoutMs: 5_000 }, {}));
    const { sessionId, call } = await asking();
    expect(offeredIn(0)).toEqual(['add', ASK_USER_TOOL]);
    fake.reply(answerTurn(...content('Paris, then.')));
    await manager!.provideInput({ sessionId, stepId: call.stepId, text: 'France', by: 'conn-a' });
    const chain = await finished(sessionId);
    expect(toolMessagesOf(1).map((message) => message.content)).toEqual(['France']);
    expect(chain.at(-1)!.content).toBe('Paris, then.');
  });

  it('answers a bad ask_user call at once with the schema error, and nothing waits', async () => {
    start((baseURL) => createOpenAIAgent(testEnv(baseURL)));
    fake.reply(toolTurn(...toolCall(0, 'call_bad', ASK_USER_TOOL, '{"choices":[]}')), answerTurn(...content('I will not ask, then.')));
    const { sessionId } = await manager!.create({ task: 'What is the capital?' });
    const chain = await finished(sessionId);
    expect(chain.map((step) => [step.kind, step.tool ?? null])).toEqual([
      ['tool_call', ASK_USER_TOOL],
      ['observation', ASK_USER_TOOL],
      ['final_answer', null],
    ]);
    expect(chain[0]!.question).toBeUndefined();
    expect(chain[1]!.content).toMatch(/^Error: /u);
    expect(toolMessagesOf(1)[0]!.content).toBe(chain[1]!.content);
  });

  it('tells the model when the user did not answer in time', async () => {
    start((baseURL) => createOpenAIAgent(testEnv(baseURL)));
    const { sessionId } = await asking({ inputTimeoutMs: 1_000 });
    fake.reply(answerTurn(...content('Without an answer I cannot say.')));
    const chain = await finished(sessionId, 2_000_000);
    expect(toolMessagesOf(1).map((message) => message.content)).toEqual(['The user did not answer in time.']);
    expect(chain.at(-2)).toMatchObject({ kind: 'observation', tool: ASK_USER_TOOL, result: { unanswered: true } });
  });
});

describe('openai agent at its own ask_user call, outside a session', () => {
  it('ends its run at the call: the call is not run and the model is not asked again', async () => {
    fake.reply(toolTurn(...toolCall(0, 'call_q', ASK_USER_TOOL, QUESTION)));
    const { context, sink, invocations: ran } = testRun();
    await createOpenAIAgent(testEnv(fake.baseURL)).run(context);
    expect(sink.steps.map((step) => [step.kind, step.tool, step.content])).toEqual([['tool_call', ASK_USER_TOOL, QUESTION]]);
    expect(fake.requests).toHaveLength(1);
    expect(ran).toEqual([]);
  });
});
