import type { ChatCompletionChunk } from 'openai/resources/chat/completions';
import type { ReportedTokens } from '@interthought/agent';

/** The fields OpenAI-compatible endpoints put in `usage`; DeepSeek names its cache hits its own way. */
interface WireUsage {
  prompt_tokens?: unknown;
  completion_tokens?: unknown;
  prompt_tokens_details?: { cached_tokens?: unknown } | null;
  completion_tokens_details?: { reasoning_tokens?: unknown } | null;
  prompt_cache_hit_tokens?: unknown;
}

const count = (value: unknown): number | undefined => (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : undefined);

/**
 * The tokens a chunk reports, if it carries usage. With `stream_options.include_usage`, OpenAI
 * sends them in a last chunk with `choices: []`; some servers (vLLM's continuous usage stats) send
 * running totals on every chunk, so the last one seen is the call's. Without prompt and completion
 * counts there is nothing to record: numbers are never guessed.
 */
export function usageOfChunk(chunk: ChatCompletionChunk): ReportedTokens | undefined {
  const usage = chunk.usage as WireUsage | null | undefined;
  if (typeof usage !== 'object' || usage === null) return undefined;
  const inputTokens = count(usage.prompt_tokens);
  const outputTokens = count(usage.completion_tokens);
  if (inputTokens === undefined || outputTokens === undefined) return undefined;
  const tokens: ReportedTokens = { inputTokens, outputTokens };
  const reasoning = count(usage.completion_tokens_details?.reasoning_tokens);
  if (reasoning !== undefined) tokens.reasoningTokens = reasoning;
  const cached = count(usage.prompt_tokens_details?.cached_tokens) ?? count(usage.prompt_cache_hit_tokens);
  // Cached tokens are part of the prompt: a count above it would price negative uncached input.
  if (cached !== undefined) tokens.cachedTokens = Math.min(cached, inputTokens);
  return tokens;
}

/** Whether a chunk carries a piece of the answer (reasoning, text, a refusal or a tool call), not only a role or usage. */
export function carriesAnswer(chunk: ChatCompletionChunk): boolean {
  const delta = (chunk.choices ?? []).find((choice) => choice.index === 0)?.delta as
    | (ChatCompletionChunk.Choice.Delta & { reasoning_content?: string | null; reasoning?: string | null })
    | undefined;
  if (delta === undefined) return false;
  return Boolean(delta.content || delta.reasoning_content || delta.reasoning || delta.refusal || delta.tool_calls?.length);
}
