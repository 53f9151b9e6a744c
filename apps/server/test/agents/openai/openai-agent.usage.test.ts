import { OpenAI } from 'openai';
import type { ChatCompletionChunk } from 'openai/resources/chat/completions';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { streamChatCompletion } from '../../../src/agents/openai/chat-stream.js';
import { createOpenAIAgent } from '../../../src/agents/openai/index.js';
import { RecordingSink } from '../../support/recording-sink.js';
import { FakeOpenAIServer } from './support/fake-openai-server.js';
import { testEnv, testRun } from './support/run-context.js';
import { answerTurn, content, reasoning, toolCall, toolTurn, usage, withUsage } from './support/wire.js';

// The openai agent's usage (PROTOCOL.md §22) against a fake endpoint that reports it as OpenAI
// does: only when asked with stream_options.include_usage, in a last chunk with choices [].
let fake: FakeOpenAIServer;
beforeEach(async () => {
  fake = await FakeOpenAIServer.start();
});
afterEach(async () => {
  await fake.close();
});

describe('the chat stream with usage', () => {
  it('yields the usage-only last chunk (choices: []) after the finish reason', async () => {
    fake.reply(withUsage(answerTurn(...content('Hi.')), usage(12, 3, { cached: 8, reasoning: 1 })));
    const client = new OpenAI({ apiKey: 'k', baseURL: fake.baseURL, maxRetries: 0 });
    const chunks: ChatCompletionChunk[] = [];
    const stream = streamChatCompletion(client, { model: 'test-model', messages: [{ role: 'user', content: 'Hi' }], stream: true, stream_options: { include_usage: true } }, {
      signal: new AbortController().signal,
      sink: new RecordingSink(),
      retry: { attempts: 1, baseDelayMs: 1, maxDelayMs: 1 },
      facts: { baseURL: fake.baseURL, timeoutMs: 5_000, attempts: 1 },
    });
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks.slice(0, -1).every((chunk) => chunk.usage === null && chunk.choices.length === 1)).toBe(true);
    expect(chunks.at(-2)!.choices[0]!.finish_reason).toBe('stop');
    expect(chunks.at(-1)).toMatchObject({
      choices: [],
      usage: { prompt_tokens: 12, completion_tokens: 3, total_tokens: 15, prompt_tokens_details: { cached_tokens: 8 }, completion_tokens_details: { reasoning_tokens: 1 } },
    });
  });
});

describe('openai agent: usage per model call', () => {
  it('asks the endpoint for usage on every call', async () => {
    fake.reply(answerTurn(...content('5')));
    const { context } = testRun();
    await createOpenAIAgent(testEnv(fake.baseURL)).run(context);
    expect(fake.requests[0]!.body.stream_options).toEqual({ include_usage: true });
  });

  it('reports each call once, naming the steps that call produced, and none for the tool it ran', async () => {
    fake.reply(
      withUsage(toolTurn(...reasoning('Add them.'), ...toolCall(0, 'call_1', 'add', '{"a":2,"b":3}')), usage(100, 20, { cached: 60, reasoning: 8 })),
      withUsage(answerTurn(...content('It is 5.')), usage(150, 5)),
    );
    const { context, sink } = testRun();
    await createOpenAIAgent(testEnv(fake.baseURL)).run(context);

    expect(sink.summary().map((step) => step.kind)).toEqual(['thought', 'tool_call', 'observation', 'final_answer']);
    const [thought, call, , answer] = sink.steps;
    expect(sink.usageReports()).toEqual([
      {
        model: 'test-model',
        usage: { inputTokens: 100, outputTokens: 20, cachedTokens: 60, reasoningTokens: 8 },
        timeToFirstTokenMs: expect.any(Number),
        durationMs: expect.any(Number),
        stepIds: [thought!.stepId, call!.stepId],
      },
      { model: 'test-model', usage: { inputTokens: 150, outputTokens: 5, cachedTokens: 0, reasoningTokens: 0 }, timeToFirstTokenMs: expect.any(Number), durationMs: expect.any(Number), stepIds: [answer!.stepId] },
    ]);
    // Each report comes after its call's last step ended, before any later step starts.
    const order = sink.events.map((event) => ('stepId' in event ? `${event.type}:${event.stepId}` : event.type));
    expect(order.indexOf('usage')).toBeGreaterThan(order.indexOf(`end:${call!.stepId}`));
    expect(order.indexOf('usage')).toBeLessThan(order.indexOf(`start:${sink.steps[2]!.stepId}`));
  });

  it('names the model the session asked for', async () => {
    fake.reply(withUsage(answerTurn(...content('5')), usage(1, 1)));
    const { context, sink } = testRun({ options: { model: 'other-model' } });
    await createOpenAIAgent(testEnv(fake.baseURL)).run(context);
    expect(sink.usageReports()[0]!.model).toBe('other-model');
  });

  it('measures the time to the first token and to the end of the answer', async () => {
    fake.reply(withUsage(answerTurn(...content('It ', 'is 5.')), usage(10, 4), { firstDeltaDelayMs: 150 }));
    const { context, sink } = testRun();
    await createOpenAIAgent(testEnv(fake.baseURL)).run(context);
    const [report] = sink.usageReports();
    expect(report!.timeToFirstTokenMs).toBeGreaterThanOrEqual(140);
    expect(report!.timeToFirstTokenMs).toBeLessThan(2_000);
    expect(report!.durationMs).toBeGreaterThanOrEqual(report!.timeToFirstTokenMs!);
  });

  it('reports nothing for an endpoint that sends no usage: no invented numbers', async () => {
    fake.reply(toolTurn(...toolCall(0, 'call_1', 'add', '{"a":2,"b":3}')), answerTurn(...content('It is 5.')));
    const { context, sink } = testRun();
    await createOpenAIAgent(testEnv(fake.baseURL)).run(context);
    expect(sink.kinds()).toEqual(['tool_call', 'observation', 'final_answer']);
    expect(sink.usageReports()).toEqual([]);
  });

  it('still reports a call whose answer it could not use, with no steps, before failing', async () => {
    fake.reply({ type: 'stream', deltas: [], finishReason: 'stop', usage: usage(40, 0) });
    const { context, sink } = testRun();
    await expect(createOpenAIAgent(testEnv(fake.baseURL)).run(context)).rejects.toThrow('without an answer or a tool call');
    expect(sink.usageReports()).toEqual([expect.objectContaining({ usage: { inputTokens: 40, outputTokens: 0, cachedTokens: 0, reasoningTokens: 0 }, stepIds: [] })]);
  });

  it('reports nothing for a call cut off before its usage came', async () => {
    fake.reply({ type: 'stream', deltas: reasoning('Thinking'), finishReason: null, hang: true, usage: usage(1, 1) });
    const { context, sink, controller } = testRun();
    const running = createOpenAIAgent(testEnv(fake.baseURL)).run(context);
    await sink.waitFor((event) => event.type === 'start');
    controller.abort(new Error('corrected'));
    await expect(running).rejects.toThrow('corrected');
    expect(sink.usageReports()).toEqual([]);
  });
});
