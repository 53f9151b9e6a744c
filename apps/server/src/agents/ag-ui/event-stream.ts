import { abortableSleep } from '@interthought/agent';
import { AgUiFailure } from './agent-failure.js';
import { retryDelayMs, type AgUiEndpoint } from './config.js';

/*
 * The HTTP side of a run: POST the input, read the answer as server-sent events and hand on each
 * `data` as parsed JSON. A connection failure before the stream opens is tried again; an HTTP
 * error, a body that is not an event stream, a frame that is not JSON or a stall fails the run.
 */

type Env = Record<string, string | undefined>;

/** The header values with each `${NAME}` filled from the environment now (an unset one is empty). */
export function requestHeaders(headers: Readonly<Record<string, string>>, env: Env): Record<string, string> {
  const filled: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) filled[name] = value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_, variable: string) => env[variable] ?? '');
  return filled;
}

export interface StreamRequest {
  endpoint: AgUiEndpoint;
  env: Env;
  body: unknown;
  signal: AbortSignal;
  /** Told before each retry, so the user sees why the agent is slow to start. */
  onRetry(detail: string): void;
}

const BODY_EXCERPT = 300;

async function errorExcerpt(response: Response): Promise<string> {
  const text = (await response.text().catch(() => '')).trim().replace(/\s+/g, ' ');
  return text.length === 0 ? '' : `: ${text.length > BODY_EXCERPT ? `${text.slice(0, BODY_EXCERPT)}…` : text}`;
}

function causeOf(error: unknown): string {
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause.message : undefined;
  const message = error instanceof Error ? error.message : String(error);
  return cause === undefined ? message : `${message} (${cause})`;
}

/** POST the run and open its stream, trying again after connection failures; aborts propagate. */
async function open(request: StreamRequest, signal: AbortSignal): Promise<Response> {
  const { endpoint } = request;
  const host = new URL(endpoint.url).host;
  for (let attempt = 0; ; attempt++) {
    let response: Response;
    try {
      response = await fetch(endpoint.url, {
        method: 'POST',
        headers: { ...requestHeaders(endpoint.headers, request.env), 'Content-Type': 'application/json', Accept: 'text/event-stream' },
        body: JSON.stringify(request.body),
        signal,
      });
    } catch (error) {
      if (signal.aborted) throw signal.reason;
      if (attempt >= endpoint.retries) throw new AgUiFailure(`The AG-UI agent at ${host} cannot be reached: ${causeOf(error)}`);
      const delay = retryDelayMs(attempt + 1);
      request.onRetry(`The AG-UI agent at ${host} cannot be reached; trying again in ${Math.ceil(delay / 1000)} s.`);
      await abortableSleep(delay, signal);
      continue;
    }
    if (!response.ok) throw new AgUiFailure(`The AG-UI agent at ${host} answered HTTP ${response.status}${await errorExcerpt(response)}`);
    const type = response.headers.get('content-type') ?? '';
    if (!/^text\/event-stream\b/i.test(type)) {
      await response.body?.cancel().catch(() => undefined);
      throw new AgUiFailure(`The AG-UI agent at ${host} answered ${type || 'without a content type'}, not an event stream (text/event-stream).`);
    }
    if (response.body === null) throw new AgUiFailure(`The AG-UI agent at ${host} answered without a body.`);
    return response;
  }
}

/** The `data` of each server-sent event, parsed as JSON, until the stream ends. */
export async function* readEventStream(request: StreamRequest): AsyncGenerator<unknown, void, undefined> {
  const { endpoint } = request;
  const local = new AbortController();
  const stall = new AgUiFailure(`The AG-UI agent stalled: no event for ${endpoint.timeoutMs / 1000} s.`);
  const onAbort = (): void => local.abort(request.signal.reason);
  request.signal.addEventListener('abort', onAbort, { once: true });
  let timer: NodeJS.Timeout | undefined;
  const arm = (): void => {
    clearTimeout(timer);
    timer = setTimeout(() => local.abort(stall), endpoint.timeoutMs);
  };
  arm();
  try {
    const response = await open(request, local.signal);
    const decoder = new TextDecoder();
    let buffer = '';
    let data: string[] = [];
    const reader = response.body!.getReader();
    const cancel = (): void => void reader.cancel(local.signal.reason).catch(() => undefined);
    local.signal.addEventListener('abort', cancel, { once: true });
    try {
      for (;;) {
        let chunk: Awaited<ReturnType<typeof reader.read>>;
        try {
          chunk = await reader.read();
        } catch (error) {
          if (local.signal.aborted) throw local.signal.reason;
          throw new AgUiFailure(`The AG-UI agent's stream broke: ${causeOf(error)}`);
        }
        if (local.signal.aborted) throw local.signal.reason;
        buffer += decoder.decode(chunk.value, { stream: !chunk.done });
        if (chunk.done) buffer += '\n\n';
        const lines = buffer.split(/\r\n|\r|\n/);
        buffer = lines.pop() ?? '';
        for (const line of lines) {
          if (line === '') {
            if (data.length > 0) {
              const text = data.join('\n');
              data = [];
              arm();
              yield parseData(text);
            }
          } else if (line.startsWith('data:')) {
            data.push(line.slice(line.startsWith('data: ') ? 6 : 5));
          }
          // Comments (":") and the other fields (event, id, retry) carry nothing AG-UI reads.
        }
        if (chunk.done) return;
      }
    } finally {
      local.signal.removeEventListener('abort', cancel);
      cancel();
    }
  } finally {
    clearTimeout(timer);
    request.signal.removeEventListener('abort', onAbort);
  }
}

function parseData(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    const excerpt = text.length > 80 ? `${text.slice(0, 80)}…` : text;
    throw new AgUiFailure(`The AG-UI agent sent an event that is not JSON: ${JSON.stringify(excerpt)}`);
  }
}
