import type { FakeReply, WireDelta, WireUsage } from './fake-openai-server.js';

/** Content deltas, one per piece. */
export function content(...pieces: string[]): WireDelta[] {
  return pieces.map((piece) => ({ content: piece }));
}

/** `reasoning_content` deltas (DeepSeek, Qwen), one per piece. */
export function reasoning(...pieces: string[]): WireDelta[] {
  return pieces.map((piece) => ({ reasoning_content: piece }));
}

/** A tool call as OpenAI streams it: id, type and name first, then the argument fragments. */
export function toolCall(index: number, id: string, name: string, ...argumentFragments: string[]): WireDelta[] {
  return [
    { tool_calls: [{ index, id, type: 'function', function: { name, arguments: '' } }] },
    ...argumentFragments.map((fragment) => ({ tool_calls: [{ index, function: { arguments: fragment } }] })),
  ];
}

/** A turn that ends with a final answer. */
export function answerTurn(...deltas: WireDelta[]): FakeReply {
  return { type: 'stream', deltas, finishReason: 'stop' };
}

/** A turn that ends with tool calls. */
export function toolTurn(...deltas: WireDelta[]): FakeReply {
  return { type: 'stream', deltas, finishReason: 'tool_calls' };
}

/**
 * Usage as OpenAI reports it: `input` prompt tokens (`cached` of them from the cache), `output`
 * completion tokens (`reasoning` of them reasoning).
 */
export function usage(input: number, output: number, extra: { cached?: number; reasoning?: number } = {}): WireUsage {
  return {
    prompt_tokens: input,
    completion_tokens: output,
    total_tokens: input + output,
    prompt_tokens_details: { cached_tokens: extra.cached ?? 0 },
    completion_tokens_details: { reasoning_tokens: extra.reasoning ?? 0 },
  };
}

/** The same turn, with its usage reported at the end of the stream. */
export function withUsage(reply: FakeReply, reported: WireUsage, extra: { firstDeltaDelayMs?: number } = {}): FakeReply {
  if (reply.type !== 'stream') throw new Error('Only a streamed turn reports usage.');
  return { ...reply, usage: reported, ...extra };
}

/** An error answer with the OpenAI error body. */
export function errorReply(status: number, message: string, headers?: Record<string, string>): FakeReply {
  return { type: 'error', status, message, headers: headers ?? {} };
}
