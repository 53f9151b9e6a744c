import { APIError, type OpenAI } from 'openai';
import type { ChatCompletionChunk, ChatCompletionCreateParamsStreaming } from 'openai/resources/chat/completions';
import type { StepSink } from '@interthought/agent';
import type { RetryConfig } from './config.js';
import { describeEndpointFailure, isRetryableStatus, silentEndpoint, type EndpointFacts } from './endpoint-errors.js';
import { abortableSleep } from '@interthought/agent';
import { formatDelay, retryDelayMs } from './retry.js';

export interface ChatStreamOptions {
  /** The run's signal: a correction, cancel or shutdown aborts the HTTP request with it. */
  signal: AbortSignal;
  /** Where retry notices go. */
  sink: StepSink;
  retry: RetryConfig;
  facts: EndpointFacts;
  /** Called as each request is sent (the first, and each retry): where a call's timing starts. */
  onAttempt?: () => void;
}

/**
 * Stream one chat completion, chunk by chunk. 429 and 5xx answers are retried with visible
 * notices; the endpoint may stay silent for at most `facts.timeoutMs` (before the answer starts,
 * and between chunks, not while the consumer is busy). An abort rejects with the signal's reason
 * untouched; every other failure with an `OpenAIEndpointError` that says what to check.
 */
export async function* streamChatCompletion(
  client: OpenAI,
  body: ChatCompletionCreateParamsStreaming,
  options: ChatStreamOptions,
): AsyncGenerator<ChatCompletionChunk> {
  const request = new AbortController();
  const forwardAbort = (): void => request.abort(options.signal.reason);
  options.signal.addEventListener('abort', forwardAbort, { once: true });
  const watchdog = new SilenceWatchdog(request, options.facts.timeoutMs);
  try {
    const stream = await openWithRetries(client, body, request.signal, options);
    const chunks = stream[Symbol.asyncIterator]();
    for (;;) {
      watchdog.arm();
      const next = await chunks.next();
      watchdog.disarm();
      // The SDK ends the iteration quietly when the request is aborted, so check why it ended.
      if (options.signal.aborted) throw options.signal.reason;
      if (watchdog.fired) throw silentEndpoint(options.facts);
      if (next.done) return;
      yield next.value;
    }
  } catch (error) {
    if (options.signal.aborted) throw options.signal.reason;
    if (watchdog.fired) throw silentEndpoint(options.facts);
    throw describeEndpointFailure(error, options.facts);
  } finally {
    watchdog.disarm();
    options.signal.removeEventListener('abort', forwardAbort);
    // Closes the HTTP stream when the consumer stops early (its step write was aborted, it threw).
    request.abort();
  }
}

async function openWithRetries(
  client: OpenAI,
  body: ChatCompletionCreateParamsStreaming,
  requestSignal: AbortSignal,
  options: ChatStreamOptions,
): Promise<AsyncIterable<ChatCompletionChunk>> {
  for (let attempt = 1; ; attempt++) {
    try {
      options.onAttempt?.();
      // maxRetries: 0, so the SDK's silent retries don't hide ours (which the user sees).
      return await client.chat.completions.create(body, {
        signal: requestSignal,
        timeout: options.facts.timeoutMs,
        maxRetries: 0,
      });
    } catch (error) {
      if (!(error instanceof APIError) || !isRetryableStatus(error.status) || attempt >= options.retry.attempts) throw error;
      const delay = retryDelayMs(error.headers, attempt, options.retry);
      const what = error.status === 429 ? 'rate limited' : 'endpoint error';
      options.sink.notice(`${what} (${error.status}), retrying in ${formatDelay(delay)}…`);
      await abortableSleep(delay, options.signal);
    }
  }
}

/** Aborts the request when the endpoint stays silent for too long while the agent waits for it. */
class SilenceWatchdog {
  #timer: NodeJS.Timeout | undefined;
  fired = false;

  constructor(
    private readonly request: AbortController,
    private readonly timeoutMs: number,
  ) {}

  arm(): void {
    this.disarm();
    this.#timer = setTimeout(() => {
      this.fired = true;
      this.request.abort();
    }, this.timeoutMs);
  }

  disarm(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}
