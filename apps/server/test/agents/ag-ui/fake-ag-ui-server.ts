import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { EventEncoder } from '@ag-ui/encoder';
import type { BaseEvent, RunAgentInput } from '@ag-ui/core';

/** What the fake agent answers one request with. */
export interface Script {
  status?: number;
  /** Events (encoded with @ag-ui/encoder) or raw SSE text, in order. */
  frames?: Array<Record<string, unknown> | { raw: string }>;
  /** Keep the stream open after the frames (a stall). */
  hang?: boolean;
  /** Pause between frames, in ms. */
  gapMs?: number;
}

/** An AG-UI agent for tests: each request takes the next script for its thread and is recorded. */
export class FakeAgUiServer {
  readonly requests: Array<{ body: RunAgentInput; headers: IncomingMessage['headers'] }> = [];
  readonly #scripts = new Map<string, Script[]>();
  readonly #open = new Set<ServerResponse>();
  aborted = 0;

  private constructor(private readonly server: Server) {}

  static async start(): Promise<FakeAgUiServer> {
    const server = createServer();
    const fake = new FakeAgUiServer(server);
    server.on('request', (request, response) => void fake.#answer(request, response));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return fake;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/agent`;
  }

  /** Scripts for requests whose task (first user message) is `task`, in order. */
  script(task: string, ...scripts: Script[]): void {
    this.#scripts.set(task, [...(this.#scripts.get(task) ?? []), ...scripts]);
  }

  requestsFor(task: string): RunAgentInput[] {
    return this.requests.filter((request) => taskOf(request.body) === task).map((request) => request.body);
  }

  async #answer(request: IncomingMessage, response: ServerResponse): Promise<void> {
    let text = '';
    for await (const chunk of request) text += String(chunk);
    const body = JSON.parse(text) as RunAgentInput;
    this.requests.push({ body, headers: request.headers });
    const task = taskOf(body);
    const script = this.#scripts.get(task)?.shift() ?? { frames: [] };
    if (script.status !== undefined && script.status !== 200) {
      response.writeHead(script.status, { 'content-type': 'text/plain' }).end('agent exploded');
      return;
    }
    response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    this.#open.add(response);
    response.on('close', () => {
      if (!response.writableFinished) this.aborted++;
      this.#open.delete(response);
    });
    const encoder = new EventEncoder({ accept: 'text/event-stream' });
    for (const frame of script.frames ?? []) {
      if (response.destroyed) return;
      const fill = (event: Record<string, unknown>): Record<string, unknown> => ({ ...event, ...('threadId' in event ? { threadId: body.threadId, runId: body.runId } : {}) });
      response.write('raw' in frame ? (frame.raw as string) : encoder.encodeSSE(fill(frame) as unknown as BaseEvent));
      if (script.gapMs) await new Promise((resolve) => setTimeout(resolve, script.gapMs));
    }
    if (!script.hang) response.end();
  }

  async close(): Promise<void> {
    for (const response of this.#open) response.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** The usual run envelope around `events` (threadId/runId are filled in per request). */
export function run(...events: Array<Record<string, unknown>>): Array<Record<string, unknown>> {
  return [{ type: 'RUN_STARTED', threadId: '', runId: '' }, ...events, { type: 'RUN_FINISHED', threadId: '', runId: '' }];
}

export function text(messageId: string, ...deltas: string[]): Array<Record<string, unknown>> {
  return [{ type: 'TEXT_MESSAGE_START', messageId, role: 'assistant' }, ...deltas.map((delta) => ({ type: 'TEXT_MESSAGE_CONTENT', messageId, delta })), { type: 'TEXT_MESSAGE_END', messageId }];
}

export function reasoning(messageId: string, ...deltas: string[]): Array<Record<string, unknown>> {
  return [
    { type: 'REASONING_START', messageId: `${messageId}-span` },
    { type: 'REASONING_MESSAGE_START', messageId, role: 'reasoning' },
    ...deltas.map((delta) => ({ type: 'REASONING_MESSAGE_CONTENT', messageId, delta })),
    { type: 'REASONING_MESSAGE_END', messageId },
    { type: 'REASONING_END', messageId: `${messageId}-span` },
  ];
}

export function toolCall(toolCallId: string, toolCallName: string, ...deltas: string[]): Array<Record<string, unknown>> {
  return [{ type: 'TOOL_CALL_START', toolCallId, toolCallName }, ...deltas.map((delta) => ({ type: 'TOOL_CALL_ARGS', toolCallId, delta })), { type: 'TOOL_CALL_END', toolCallId }];
}

/** A request's task: its first user message (a `system` message of lessons may come before it). */
function taskOf(body: RunAgentInput): string {
  return String(body.messages.find((message) => message.role === 'user')?.content ?? '');
}
