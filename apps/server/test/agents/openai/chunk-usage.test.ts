import type { ChatCompletionChunk } from 'openai/resources/chat/completions';
import { describe, expect, it } from 'vitest';
import { carriesAnswer, usageOfChunk } from '../../../src/agents/openai/chunk-usage.js';
import { ModelCallMeter } from '../../../src/agents/openai/model-call-meter.js';

/** A chunk as it comes off the wire (the SDK passes the JSON through). */
const chunk = (fields: Record<string, unknown>): ChatCompletionChunk =>
  ({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [], ...fields }) as unknown as ChatCompletionChunk;

const delta = (fields: Record<string, unknown>): ChatCompletionChunk => chunk({ choices: [{ index: 0, delta: fields, finish_reason: null }], usage: null });

describe('usageOfChunk', () => {
  it("reads OpenAI's last chunk: choices [] and the call's usage with its details", () => {
    const last = chunk({
      choices: [],
      usage: { prompt_tokens: 1234, completion_tokens: 56, total_tokens: 1290, prompt_tokens_details: { cached_tokens: 1024 }, completion_tokens_details: { reasoning_tokens: 20 } },
    });
    expect(usageOfChunk(last)).toEqual({ inputTokens: 1234, outputTokens: 56, cachedTokens: 1024, reasoningTokens: 20 });
  });

  it('reads a usage without details (Ollama, llama.cpp), leaving what it does not say unsaid', () => {
    expect(usageOfChunk(chunk({ usage: { prompt_tokens: 10, completion_tokens: 3, total_tokens: 13 } }))).toEqual({ inputTokens: 10, outputTokens: 3 });
  });

  it("reads DeepSeek's cache hits", () => {
    expect(usageOfChunk(chunk({ usage: { prompt_tokens: 100, completion_tokens: 5, prompt_cache_hit_tokens: 64, prompt_cache_miss_tokens: 36 } }))).toEqual({
      inputTokens: 100,
      outputTokens: 5,
      cachedTokens: 64,
    });
  });

  it('finds nothing in a chunk with usage null or absent, or without both counts', () => {
    expect(usageOfChunk(delta({ content: 'Hi' }))).toBeUndefined();
    expect(usageOfChunk(chunk({}))).toBeUndefined();
    expect(usageOfChunk(chunk({ usage: { prompt_tokens: 10 } }))).toBeUndefined();
    expect(usageOfChunk(chunk({ usage: { prompt_tokens: -1, completion_tokens: 2 } }))).toBeUndefined();
    expect(usageOfChunk(chunk({ usage: { prompt_tokens: '10', completion_tokens: 2 } }))).toBeUndefined();
  });

  it('never counts more cached tokens than the prompt had', () => {
    expect(usageOfChunk(chunk({ usage: { prompt_tokens: 10, completion_tokens: 1, prompt_tokens_details: { cached_tokens: 50 } } }))?.cachedTokens).toBe(10);
  });
});

describe('carriesAnswer', () => {
  it('is true for reasoning, text and tool calls, false for the role chunk and the usage chunk', () => {
    expect(carriesAnswer(delta({ role: 'assistant', content: '' }))).toBe(false);
    expect(carriesAnswer(chunk({ choices: [], usage: { prompt_tokens: 1, completion_tokens: 1 } }))).toBe(false);
    expect(carriesAnswer(delta({ reasoning_content: 'Hmm' }))).toBe(true);
    expect(carriesAnswer(delta({ content: 'Hi' }))).toBe(true);
    expect(carriesAnswer(delta({ tool_calls: [{ index: 0, function: { name: 'add' } }] }))).toBe(true);
  });
});

describe('ModelCallMeter', () => {
  it('times the first token and the end from the answered request, and reports the last usage seen', () => {
    let now = 0;
    const meter = new ModelCallMeter('m', () => now);
    meter.sent();
    now = 400; // a refused attempt, then a retry: the clock starts again
    meter.sent();
    now = 450;
    meter.observe(delta({ role: 'assistant', content: '' }));
    now = 700;
    meter.observe(delta({ content: 'Hi' }));
    now = 900;
    meter.observe(chunk({ usage: { prompt_tokens: 5, completion_tokens: 1 } }));
    now = 950;
    meter.observe(chunk({ usage: { prompt_tokens: 5, completion_tokens: 2 } }));
    expect(meter.report(['s1'])).toEqual({ model: 'm', usage: { inputTokens: 5, outputTokens: 2 }, timeToFirstTokenMs: 300, durationMs: 550, stepIds: ['s1'] });
  });

  it('reports nothing when the endpoint reported no usage', () => {
    const meter = new ModelCallMeter('m', () => 0);
    meter.sent();
    meter.observe(delta({ content: 'Hi' }));
    expect(meter.report(['s1'])).toBeUndefined();
  });
});
