import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import type { ChatCompletionChunk } from 'openai/resources/chat/completions';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { traceChatCompletion, type ChatCall } from '../../src/tracing/chat-completion-span.js';
import { RecordedSpans } from './support/recorded-spans.js';

// The model-call span over chunks as the OpenAI SDK yields them (plain calls, no endpoint).
let spans: RecordedSpans;
beforeAll(() => {
  spans = RecordedSpans.start();
});
afterAll(async () => {
  await spans.stop();
});
afterEach(() => {
  spans.reset();
});

function chunk(delta: Record<string, unknown>, finishReason: string | null = null): ChatCompletionChunk {
  return { id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 0, model: 'gpt-test-2025', choices: [{ index: 0, delta, finish_reason: finishReason }] } as ChatCompletionChunk;
}

const USAGE_CHUNK = {
  id: 'chatcmpl-1',
  object: 'chat.completion.chunk',
  created: 0,
  model: 'gpt-test-2025',
  choices: [],
  usage: { prompt_tokens: 120, completion_tokens: 30, total_tokens: 150, prompt_tokens_details: { cached_tokens: 100 }, completion_tokens_details: { reasoning_tokens: 12 } },
} as ChatCompletionChunk;

async function* stream(chunks: ChatCompletionChunk[], failure?: Error): AsyncGenerator<ChatCompletionChunk> {
  for (const each of chunks) {
    await new Promise((resolve) => setTimeout(resolve, 2));
    yield each;
  }
  if (failure) throw failure;
}

function call(signal = new AbortController().signal): ChatCall {
  return { body: { model: 'gpt-test', messages: [], stream: true, temperature: 0.2 }, baseURL: 'https://llm.example/v1', signal };
}

async function drain(chunks: AsyncIterable<ChatCompletionChunk>): Promise<ChatCompletionChunk[]> {
  const seen: ChatCompletionChunk[] = [];
  for await (const each of chunks) seen.push(each);
  return seen;
}

describe('chat <model> spans', () => {
  it('passes every chunk through and records the request, the response, the finish reason, the first chunk and token, and usage', async () => {
    const chunks = [chunk({ role: 'assistant', content: '' }), chunk({ content: 'Hi' }), chunk({}, 'stop'), USAGE_CHUNK];
    expect(await drain(traceChatCompletion(call(), stream(chunks)))).toEqual(chunks);

    const span = spans.one('chat gpt-test');
    expect(span.kind).toBe(SpanKind.CLIENT);
    expect(span.status.code).toBe(SpanStatusCode.UNSET);
    expect(span.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'openai',
      'gen_ai.request.model': 'gpt-test',
      'gen_ai.request.temperature': 0.2,
      'server.address': 'llm.example',
      'server.port': 443,
      'gen_ai.response.id': 'chatcmpl-1',
      'gen_ai.response.model': 'gpt-test-2025',
      'gen_ai.response.finish_reasons': ['stop'],
      'gen_ai.usage.input_tokens': 120,
      'gen_ai.usage.output_tokens': 30,
      'gen_ai.usage.cache_read.input_tokens': 100,
      'gen_ai.usage.reasoning.output_tokens': 12,
    });
    const firstChunk = span.attributes['gen_ai.response.time_to_first_chunk'] as number;
    const firstToken = span.attributes['interthought.time_to_first_token'] as number;
    expect(firstChunk).toBeGreaterThan(0);
    // The role chunk comes first and carries no token; the text comes a chunk later.
    expect(firstToken).toBeGreaterThan(firstChunk);
  });

  it('counts reasoning and tool-call fragments as the first token, and sets only what an endpoint without usage sends', async () => {
    await drain(traceChatCompletion(call(), stream([chunk({ reasoning_content: 'Let me see' }), chunk({}, 'tool_calls')])));
    const span = spans.one('chat gpt-test');
    expect(span.attributes['interthought.time_to_first_token']).toBe(span.attributes['gen_ai.response.time_to_first_chunk']);
    expect(span.attributes['gen_ai.response.finish_reasons']).toEqual(['tool_calls']);
    expect(Object.keys(span.attributes).filter((key) => key.startsWith('gen_ai.usage'))).toEqual([]);
  });

  it('sets ERROR with the message when the stream fails', async () => {
    const failure = new Error('OpenAI-compatible endpoint answered 500: overloaded');
    await expect(drain(traceChatCompletion(call(), stream([chunk({ content: 'Hi' })], failure)))).rejects.toBe(failure);
    const span = spans.one('chat gpt-test');
    expect(span.status).toEqual({ code: SpanStatusCode.ERROR, message: failure.message });
    expect(span.attributes['error.type']).toBe('Error');
  });

  it('sets ERROR when the stream ends before the model finished its turn', async () => {
    await drain(traceChatCompletion(call(), stream([chunk({ content: 'Hi' })])));
    expect(spans.one('chat gpt-test').status.code).toBe(SpanStatusCode.ERROR);
  });

  it('ends as aborted, not as an error, when the run is aborted while the agent reads', async () => {
    const controller = new AbortController();
    const chunks = traceChatCompletion(call(controller.signal), stream([chunk({ content: 'a' }), chunk({ content: 'b' }), chunk({}, 'stop')]));
    for await (const _ of chunks) {
      controller.abort(new Error('a step was corrected'));
      break;
    }
    const span = spans.one('chat gpt-test');
    expect(span.status.code).toBe(SpanStatusCode.UNSET);
    expect(span.events.map((event) => [event.name, event.attributes])).toEqual([['interthought.aborted', { 'interthought.abort.reason': 'a step was corrected' }]]);
  });
});
