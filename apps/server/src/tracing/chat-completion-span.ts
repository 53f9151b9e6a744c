import { SpanKind, SpanStatusCode, type Attributes, type Span } from '@opentelemetry/api';
import type { ChatCompletionChunk, ChatCompletionCreateParamsStreaming } from 'openai/resources/chat/completions';
import {
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GEN_AI_PROVIDER_NAME,
  ATTR_GEN_AI_REQUEST_MODEL,
  ATTR_GEN_AI_REQUEST_TEMPERATURE,
  ATTR_GEN_AI_RESPONSE_FINISH_REASONS,
  ATTR_GEN_AI_RESPONSE_ID,
  ATTR_GEN_AI_RESPONSE_MODEL,
  ATTR_GEN_AI_RESPONSE_TIME_TO_FIRST_CHUNK,
  ATTR_GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_OUTPUT_TOKENS,
  ATTR_GEN_AI_USAGE_REASONING_OUTPUT_TOKENS,
  ATTR_SERVER_ADDRESS,
  ATTR_SERVER_PORT,
  ATTR_TIME_TO_FIRST_TOKEN,
  GEN_AI_OPERATION_NAME_VALUE_CHAT,
  GEN_AI_PROVIDER_NAME_VALUE_OPENAI,
} from './attributes.js';
import { endAborted, endWithFailure, tracer } from './tracer.js';

/** One model call as the openai agent makes it. */
export interface ChatCall {
  body: ChatCompletionCreateParamsStreaming;
  /** The endpoint's base URL (the part before `/chat/completions`). */
  baseURL: string;
  /** The run's signal: a call it aborts ends without an error. */
  signal: AbortSignal;
}

function requestAttributes(call: ChatCall): Attributes {
  const attributes: Attributes = {
    [ATTR_GEN_AI_OPERATION_NAME]: GEN_AI_OPERATION_NAME_VALUE_CHAT,
    // Every endpoint the agent drives speaks OpenAI's chat-completions API; server.address says whose it is.
    [ATTR_GEN_AI_PROVIDER_NAME]: GEN_AI_PROVIDER_NAME_VALUE_OPENAI,
    [ATTR_GEN_AI_REQUEST_MODEL]: call.body.model,
  };
  if (typeof call.body.temperature === 'number') attributes[ATTR_GEN_AI_REQUEST_TEMPERATURE] = call.body.temperature;
  const url = URL.canParse(call.baseURL) ? new URL(call.baseURL) : undefined;
  if (url !== undefined) {
    attributes[ATTR_SERVER_ADDRESS] = url.hostname;
    attributes[ATTR_SERVER_PORT] = url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port);
  }
  return attributes;
}

/**
 * The chunks of one chat completion, observed by a `chat <model>` span that covers the request
 * (its retries included) until the stream ends. With tracing off the chunks are returned as they
 * are: the stream pays nothing per chunk.
 */
export function traceChatCompletion(call: ChatCall, chunks: AsyncIterable<ChatCompletionChunk>): AsyncIterable<ChatCompletionChunk> {
  const span = tracer().startSpan(`${GEN_AI_OPERATION_NAME_VALUE_CHAT} ${call.body.model}`, { kind: SpanKind.CLIENT, attributes: requestAttributes(call) });
  if (!span.isRecording()) return chunks;
  return observe(chunks, span, call.signal);
}

async function* observe(chunks: AsyncIterable<ChatCompletionChunk>, span: Span, signal: AbortSignal): AsyncGenerator<ChatCompletionChunk> {
  const reader = new ChunkReader(span);
  let ended = false;
  try {
    for await (const chunk of chunks) {
      reader.read(chunk);
      yield chunk;
    }
    ended = true;
    reader.finish();
  } catch (error) {
    ended = true;
    endWithFailure(span, error, signal);
    throw error;
  } finally {
    // The agent stopped reading (its step was aborted, or it failed on a chunk: the turn's span has that error).
    if (!ended) {
      reader.record();
      if (signal.aborted) endAborted(span, signal.reason);
      else span.end();
    }
  }
}

/** What the chunks say about the call: response id and model, first chunk and token, finish reasons, usage. */
class ChunkReader {
  readonly #started = performance.now();
  #chunks = 0;
  #firstToken = false;
  readonly #finishReasons: string[] = [];

  constructor(private readonly span: Span) {}

  read(chunk: ChatCompletionChunk): void {
    // One clock reading per chunk, taken only when needed: the first chunk and the first token may be the same one.
    let seconds: number | undefined;
    const now = (): number => (seconds ??= (performance.now() - this.#started) / 1000);
    if (this.#chunks++ === 0) {
      this.span.setAttributes({
        [ATTR_GEN_AI_RESPONSE_TIME_TO_FIRST_CHUNK]: now(),
        [ATTR_GEN_AI_RESPONSE_ID]: chunk.id,
        [ATTR_GEN_AI_RESPONSE_MODEL]: chunk.model,
      });
    }
    for (const choice of chunk.choices) {
      if (!this.#firstToken && carriesToken(choice.delta)) {
        this.#firstToken = true;
        this.span.setAttribute(ATTR_TIME_TO_FIRST_TOKEN, now());
      }
      if (choice.finish_reason) this.#finishReasons[choice.index] = choice.finish_reason;
    }
    // Endpoints that report usage send it in a last chunk without choices (OpenAI: stream_options.include_usage).
    if (chunk.usage) {
      const { usage } = chunk;
      this.span.setAttributes({ [ATTR_GEN_AI_USAGE_INPUT_TOKENS]: usage.prompt_tokens, [ATTR_GEN_AI_USAGE_OUTPUT_TOKENS]: usage.completion_tokens });
      const reasoning = usage.completion_tokens_details?.reasoning_tokens;
      if (reasoning !== undefined) this.span.setAttribute(ATTR_GEN_AI_USAGE_REASONING_OUTPUT_TOKENS, reasoning);
      const cached = usage.prompt_tokens_details?.cached_tokens;
      if (cached !== undefined) this.span.setAttribute(ATTR_GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS, cached);
    }
  }

  /** Put the finish reasons seen so far on the span. */
  record(): void {
    const reasons = this.#finishReasons.filter((reason) => reason !== undefined);
    if (reasons.length > 0) this.span.setAttribute(ATTR_GEN_AI_RESPONSE_FINISH_REASONS, reasons);
  }

  /** The stream ended: a turn without a finish reason was cut short (the agent fails it too). */
  finish(): void {
    this.record();
    if (this.#finishReasons.length === 0) {
      this.span.setStatus({ code: SpanStatusCode.ERROR, message: 'The endpoint closed the stream before the model finished its turn.' });
    }
    this.span.end();
  }
}

type Delta = ChatCompletionChunk.Choice.Delta & { reasoning_content?: string | null; reasoning?: string | null };

function carriesToken(delta: Delta | undefined): boolean {
  if (delta === undefined) return false;
  return Boolean(delta.content || delta.refusal || delta.reasoning_content || delta.reasoning || delta.tool_calls?.length);
}
