import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** The `delta` of a chat.completion.chunk, as endpoints send it (reasoning fields included). */
export interface WireDelta {
  role?: 'assistant';
  content?: string | null;
  reasoning_content?: string;
  tool_calls?: Array<{
    index: number;
    id?: string;
    type?: 'function';
    function?: { name?: string; arguments?: string };
  }>;
}

/** A call's tokens as OpenAI reports them in the last chunk of a stream. */
export interface WireUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details?: { cached_tokens?: number };
  completion_tokens_details?: { reasoning_tokens?: number };
}

/** One scripted answer of the fake endpoint, consumed by one request. */
export type FakeReply =
  | {
      type: 'stream';
      deltas: WireDelta[];
      /** Sent in a last chunk with an empty delta; `null` sends no such chunk and no `[DONE]`. */
      finishReason: 'stop' | 'tool_calls' | 'length' | null;
      /** After the deltas, keep the response open without sending anything more. */
      hang?: boolean;
      /** After the deltas, an error event as OpenAI sends one mid-stream (`data: {"error":…}`), then the end. */
      errorMessage?: string;
      /**
       * The call's tokens. As OpenAI does, sent only when the request asked with
       * `stream_options.include_usage`: every chunk then has `usage: null`, and a last chunk
       * before `[DONE]` has `choices: []` and these.
       */
      usage?: WireUsage;
      /** Milliseconds between the role chunk and the first delta: the model "thinking" before its first token. */
      firstDeltaDelayMs?: number;
      /** Milliseconds between one delta and the next: text a browser can be caught half-written. */
      deltaDelayMs?: number;
    }
  | { type: 'error'; status: number; message: string; errorType?: string; code?: string | null; headers?: Record<string, string> }
  /** Accept the request and never answer it (not even the status line). */
  | { type: 'hang' };

/** What the fake received. */
export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: any;
}

/**
 * An OpenAI-compatible chat-completions endpoint on a local port, speaking the real wire format:
 * `POST {basePath}/chat/completions` answered with `text/event-stream` chunks then `data: [DONE]`,
 * or with a JSON error body and its status. Replies are scripted per request, in order.
 */
export class FakeOpenAIServer {
  readonly requests: RecordedRequest[] = [];
  /** Responses the client closed before the fake finished them (an aborted request). */
  disconnects = 0;
  readonly #replies: FakeReply[] = [];
  /** Answers a request when no scripted reply is left: a model whose answer depends on what it was asked. */
  #answer: ((body: any) => FakeReply) | undefined;
  readonly #disconnectWaiters: Array<() => void> = [];

  private constructor(
    private readonly server: Server,
    readonly basePath: string,
  ) {}

  static async start(basePath = '/v1'): Promise<FakeOpenAIServer> {
    const server = createServer();
    const fake = new FakeOpenAIServer(server, basePath);
    server.on('request', (req, res) => void fake.#handle(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return fake;
  }

  get baseURL(): string {
    const { port } = this.server.address() as AddressInfo;
    return `http://127.0.0.1:${port}${this.basePath}`;
  }

  /** Queue the answers to the next requests. */
  reply(...replies: FakeReply[]): void {
    this.#replies.push(...replies);
  }

  /** Answer every request the script leaves unanswered from its body (a reply per request, as a model would). */
  answerBy(answer: (body: any) => FakeReply): void {
    this.#answer = answer;
  }

  /** Resolves once the client has closed a response the fake had not finished. */
  waitForDisconnect(): Promise<void> {
    if (this.disconnects > 0) return Promise.resolve();
    return new Promise((resolve) => this.#disconnectWaiters.push(resolve));
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const text = await readBody(req);
    this.requests.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body: text ? JSON.parse(text) : undefined });
    res.on('close', () => {
      if (res.writableEnded) return;
      this.disconnects++;
      for (const resolve of this.#disconnectWaiters.splice(0)) resolve();
    });
    if (req.method !== 'POST' || req.url !== `${this.basePath}/chat/completions`) {
      sendError(res, { type: 'error', status: 404, message: `Unknown path ${req.method} ${req.url}`, errorType: 'invalid_request_error' });
      return;
    }
    const reply = this.#replies.shift() ?? this.#answer?.(this.requests.at(-1)?.body);
    if (!reply) {
      sendError(res, { type: 'error', status: 400, message: `The fake has no scripted reply for request #${this.requests.length}.` });
      return;
    }
    switch (reply.type) {
      case 'error':
        sendError(res, reply);
        return;
      case 'hang':
        return;
      case 'stream': {
        const body = this.requests.at(-1)?.body;
        await sendStream(res, reply, String(body?.model ?? 'unknown'), body?.stream_options?.include_usage === true);
        return;
      }
      default: {
        const unknownReply: never = reply;
        throw new Error(`Unknown reply ${JSON.stringify(unknownReply)}`);
      }
    }
  }
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    req.on('data', (part: Buffer) => parts.push(part));
    req.on('end', () => resolve(Buffer.concat(parts).toString('utf8')));
    req.on('error', reject);
  });
}

function sendError(res: ServerResponse, reply: Extract<FakeReply, { type: 'error' }>): void {
  const body = { error: { message: reply.message, type: reply.errorType ?? 'invalid_request_error', code: reply.code ?? null } };
  res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
  res.end(JSON.stringify(body));
}

async function sendStream(res: ServerResponse, reply: Extract<FakeReply, { type: 'stream' }>, model: string, includeUsage: boolean): Promise<void> {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  const id = `chatcmpl-${Math.random().toString(36).slice(2, 10)}`;
  const created = Math.floor(Date.now() / 1000);
  const write = (chunk: Record<string, unknown>): void => {
    res.write(`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, ...chunk })}\n\n`);
  };
  const send = (delta: WireDelta, finishReason: string | null): void => {
    write({ choices: [{ index: 0, delta, finish_reason: finishReason }], ...(includeUsage ? { usage: null } : {}) });
  };
  send({ role: 'assistant', content: '' }, null);
  if (reply.firstDeltaDelayMs !== undefined) await new Promise((resolve) => setTimeout(resolve, reply.firstDeltaDelayMs));
  if (res.destroyed) return;
  for (const [i, delta] of reply.deltas.entries()) {
    if (i > 0 && reply.deltaDelayMs !== undefined) await new Promise((resolve) => setTimeout(resolve, reply.deltaDelayMs));
    if (res.destroyed) return;
    send(delta, null);
  }
  if (reply.hang) return;
  if (reply.errorMessage !== undefined) {
    res.end(`data: ${JSON.stringify({ error: { message: reply.errorMessage, type: 'server_error', code: null } })}\n\n`);
    return;
  }
  if (reply.finishReason) {
    send({}, reply.finishReason);
    if (includeUsage && reply.usage !== undefined) write({ choices: [], usage: reply.usage });
    res.write('data: [DONE]\n\n');
  }
  res.end();
}
