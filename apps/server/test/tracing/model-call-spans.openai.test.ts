import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import type { Step } from '@interthought/protocol';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AgentRegistry } from '@interthought/agent';
import { createOpenAIAgent } from '../../src/agents/openai/index.js';
import { SessionManager } from '../../src/core/session-manager.js';
import { MemoryEventStore } from '../../src/store/memory-event-store.js';
import { FakeOpenAIServer } from '../agents/openai/support/fake-openai-server.js';
import { testEnv } from '../agents/openai/support/run-context.js';
import { createTestTools } from '../agents/openai/support/test-tools.js';
import { answerTurn, content, errorReply, reasoning, toolCall, toolTurn, usage, withUsage } from '../agents/openai/support/wire.js';
import { until } from '../core/support/harness.js';
import { RecordedSpans } from './support/recorded-spans.js';
import { startTurnSpan } from '../../src/tracing/turn-span.js';

// The openai agent in the real session core against the fake chat-completions endpoint (the real
// SSE format), traced into memory.
let spans: RecordedSpans;
let fake: FakeOpenAIServer;
let manager: SessionManager;

beforeAll(() => {
  spans = RecordedSpans.start();
});
afterAll(async () => {
  await spans.stop();
});
beforeEach(async () => {
  fake = await FakeOpenAIServer.start();
  const env = testEnv(fake.baseURL, { INTERTHOUGHT_OPENAI_RETRY_ATTEMPTS: '1' });
  manager = new SessionManager({ traceTurn: startTurnSpan, store: new MemoryEventStore(), agents: new AgentRegistry('openai').register(createOpenAIAgent(env)), tools: createTestTools().tools });
});
afterEach(async () => {
  await manager.shutdown();
  await fake.close();
  spans.reset();
});

async function runToStatus(task: string, status: string): Promise<Step[]> {
  const { sessionId } = await manager.create({ task });
  await until(async () => (await manager.snapshot(sessionId))?.session.status === status, `session ${sessionId} to be ${status}`);
  const snapshot = (await manager.snapshot(sessionId))!;
  return snapshot.chain.map((id) => snapshot.steps.find((step) => step.stepId === id)!);
}

describe('traces of openai-agent sessions', () => {
  it('makes a chat span per model call and a tool span per call between them, all children of the turn', async () => {
    fake.reply(
      withUsage(toolTurn(...reasoning('Add them.'), ...toolCall(0, 'call_1', 'add', '{"a":2,', '"b":3}')), usage(50, 12, { cached: 32, reasoning: 4 })),
      withUsage(answerTurn(...content('It is ', '5.')), usage(80, 4)),
    );
    const chain = await runToStatus('What is 2 + 3?', 'completed');

    const turn = spans.one('invoke_agent openai');
    expect(turn.attributes).toMatchObject({ 'gen_ai.agent.name': 'openai', 'interthought.correction': false });
    const children = spans.childrenOf(turn);
    expect(children.map((span) => span.name)).toEqual(['chat test-model', 'execute_tool add', 'chat test-model']);
    const [toolTurnSpan, tool, answer] = children;
    for (const call of [toolTurnSpan!, answer!]) {
      expect(call.kind).toBe(SpanKind.CLIENT);
      expect(call.status.code).toBe(SpanStatusCode.UNSET);
      expect(call.attributes).toMatchObject({
        'gen_ai.operation.name': 'chat',
        'gen_ai.provider.name': 'openai',
        'gen_ai.request.model': 'test-model',
        'gen_ai.response.model': 'test-model',
        'server.address': '127.0.0.1',
      });
      expect(call.attributes['gen_ai.response.time_to_first_chunk']).toBeGreaterThanOrEqual(0);
      expect(call.attributes['interthought.time_to_first_token']).toBeGreaterThanOrEqual(call.attributes['gen_ai.response.time_to_first_chunk'] as number);
    }
    expect(toolTurnSpan!.attributes).toMatchObject({
      'gen_ai.response.finish_reasons': ['tool_calls'],
      'gen_ai.usage.input_tokens': 50,
      'gen_ai.usage.output_tokens': 12,
      'gen_ai.usage.cache_read.input_tokens': 32,
      'gen_ai.usage.reasoning.output_tokens': 4,
    });
    expect(answer!.attributes).toMatchObject({ 'gen_ai.response.finish_reasons': ['stop'], 'gen_ai.usage.input_tokens': 80, 'gen_ai.usage.output_tokens': 4 });
    const call = chain.find((step) => step.kind === 'tool_call')!;
    expect(tool!.attributes).toMatchObject({ 'gen_ai.tool.name': 'add', 'interthought.step.id': call.stepId });
  });

  it('names the tool call each span of a turn with two calls answers', async () => {
    fake.reply(
      toolTurn(...toolCall(0, 'call_1', 'add', '{"a":1,"b":1}'), ...toolCall(1, 'call_2', 'capital', '{"country":"Japan"}')),
      answerTurn(...content('2, and Tokyo.')),
    );
    const chain = await runToStatus('Two things', 'completed');

    const calls = chain.filter((step) => step.kind === 'tool_call');
    const tools = spans.all().filter((span) => span.name.startsWith('execute_tool'));
    expect(tools.map((span) => [span.name, span.attributes['interthought.step.id']])).toEqual([
      ['execute_tool add', calls[0]!.stepId],
      ['execute_tool capital', calls[1]!.stepId],
    ]);
  });

  it('sets ERROR on the span of a tool that fails, while the session goes on', async () => {
    fake.reply(toolTurn(...toolCall(0, 'call_1', 'capital', '{"country":"Atlantis"}')), answerTurn(...content('Unknown.')));
    await runToStatus('Capital of Atlantis?', 'completed');

    const tool = spans.one('execute_tool capital');
    expect(tool.status).toEqual({ code: SpanStatusCode.ERROR, message: 'No capital known for Atlantis.' });
    expect(tool.attributes['error.type']).toBe('ToolError');
  });

  it('sets ERROR on the model call and the turn when the endpoint refuses the request', async () => {
    fake.reply(errorReply(400, 'The model `test-model` does not exist'));
    await runToStatus('Hello?', 'failed');

    const turn = spans.one('invoke_agent openai');
    const [call] = spans.childrenOf(turn);
    expect(call!.name).toBe('chat test-model');
    expect(call!.status.code).toBe(SpanStatusCode.ERROR);
    expect(call!.status.message).toContain('does not exist');
    expect(turn.status).toEqual(call!.status);
  });
});
