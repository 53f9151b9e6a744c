import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult, Tool as McpToolInfo } from '@modelcontextprotocol/sdk/types.js';
import { SERVER_VERSION } from '../../config/mcp-config.js';
import { traceMeta } from '../../tracing/mcp-trace-meta.js';
import { ToolError } from '../tool.js';
import { callFailure, isServerAnswer, isTimeout, startFailure } from './failure-reasons.js';
import type { McpArguments } from './input-schema.js';
import type { McpServerConfig } from './mcp-config-file.js';
import { openLink, type ServerLink } from './transports.js';

/** Where MCP start-up and crashes are reported (the app's logger fits). */
export interface McpLog {
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
}

/** A server that did not start, with the reason in words. */
export class McpStartError extends Error {
  override readonly name = 'McpStartError';
}

/**
 * The least time a server gets to answer `initialize`: `npx -y some-server` may download the
 * server first. Calls and listings get INTERTHOUGHT_MCP_TIMEOUT_MS.
 */
export const MCP_START_TIMEOUT_MS = 60_000;

/** Notifications that a server's tools changed, within this long of each other, lead to one new listing. */
const TOOLS_CHANGED_DEBOUNCE_MS = 300;

/** A `tools/list` that pages forever (a cursor that never ends) stops here. */
const LIST_PAGES_MAX = 1_000;

interface Live {
  client: Client;
  link: ServerLink;
}

/** `promise`, or the signal's reason as soon as it aborts (the promise is left to settle on its own). */
function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error as Error);
      },
    );
  });
}

/**
 * One configured MCP server, through the SDK's `Client`. It connects on first use; when the server
 * goes away (its process exits, its endpoint stops answering) the connection is dropped and the
 * next call connects again, so a crash costs one call, never the Interthought server.
 */
export class McpConnection {
  #live: Live | undefined;
  #opening: Promise<Live> | undefined;
  #closed = false;
  /** Told when the server says its tools changed (`notifications/tools/list_changed`). */
  onToolsChanged: (() => void) | undefined;

  constructor(
    readonly server: McpServerConfig,
    readonly timeoutMs: number,
    private readonly log?: McpLog,
  ) {}

  /** How long a start (or restart) may take. */
  get startTimeoutMs(): number {
    return Math.max(this.timeoutMs, MCP_START_TIMEOUT_MS);
  }

  get name(): string {
    return this.server.name;
  }

  /** The process id of a running stdio server (tests stop it to play a crash). */
  get pid(): number | undefined {
    return this.#live?.link.pid();
  }

  /** Connect now (start-up). Throws an `McpStartError` saying why the server did not start. */
  async connect(): Promise<void> {
    await this.#open();
  }

  /** Every tool the server lists, following `nextCursor` page by page. */
  async listTools(): Promise<McpToolInfo[]> {
    const { client } = await this.#open();
    if (client.getServerCapabilities()?.tools === undefined) return [];
    const tools: McpToolInfo[] = [];
    const cursors = new Set<string>();
    let cursor: string | undefined;
    for (let page = 0; page < LIST_PAGES_MAX; page++) {
      const result = await client.listTools(cursor === undefined ? {} : { cursor }, { timeout: this.timeoutMs });
      tools.push(...result.tools);
      cursor = result.nextCursor;
      if (cursor === undefined || cursors.has(cursor)) break;
      cursors.add(cursor);
    }
    return tools;
  }

  /**
   * Call `tool` with `args`. A failure of the server or of the way to it, and a call that outlasts
   * the timeout, become a `ToolError` saying so (the observation); an abort of `signal` cancels the
   * call on the server and propagates.
   */
  async callTool(tool: string, args: McpArguments, signal: AbortSignal): Promise<CallToolResult> {
    let live: Live;
    try {
      live = await abortable(this.#open(), signal);
    } catch (error) {
      if (signal.aborted) throw error;
      throw new ToolError(`MCP server "${this.name}" is not running and could not be started again: ${error instanceof Error ? error.message : String(error)}`);
    }
    try {
      // The trace context rides in `_meta` (W3C traceparent), so the server's spans join the tool call's.
      return (await live.client.callTool({ name: tool, arguments: args, ...traceMeta() }, undefined, { signal, timeout: this.timeoutMs })) as CallToolResult;
    } catch (error) {
      if (signal.aborted) throw error;
      // A server that answered (or is merely slow) keeps its connection; any other failure drops it.
      if (!isServerAnswer(error) && !isTimeout(error)) this.#drop(live);
      throw new ToolError(callFailure(this.name, tool, error, this.timeoutMs, live.link.lastWords()));
    }
  }

  /** Disconnect for good (a stdio server's process is ended). Later calls fail with a `ToolError`. */
  async close(): Promise<void> {
    this.#closed = true;
    const opening = this.#opening?.catch(() => undefined);
    const live = this.#live ?? (await opening);
    this.#live = undefined;
    await live?.client.close().catch(() => undefined);
  }

  #open(): Promise<Live> {
    if (this.#closed) return Promise.reject(new McpStartError('Interthought is shutting down'));
    if (this.#live) return Promise.resolve(this.#live);
    // Calls that find the server down at once share one restart.
    this.#opening ??= this.#start().finally(() => {
      this.#opening = undefined;
    });
    return this.#opening;
  }

  async #start(): Promise<Live> {
    const link = openLink(this.server);
    // Only for servers that declare tools.listChanged; the listing itself is ours (`listTools`, all pages).
    const listChanged = { tools: { autoRefresh: false, debounceMs: TOOLS_CHANGED_DEBOUNCE_MS, onChanged: () => this.onToolsChanged?.() } };
    const client = new Client({ name: 'interthought', version: SERVER_VERSION }, { listChanged });
    const live: Live = { client, link };
    client.onclose = () => this.#closedByServer(live);
    try {
      await client.connect(link.transport, { timeout: this.startTimeoutMs });
    } catch (error) {
      await client.close().catch(() => undefined);
      throw new McpStartError(startFailure(error, this.startTimeoutMs, link.lastWords()));
    }
    if (this.#closed) {
      await client.close().catch(() => undefined);
      throw new McpStartError('Interthought is shutting down');
    }
    this.#live = live;
    return live;
  }

  /** The transport closed: a process that exited, or a connection we dropped ourselves. */
  #closedByServer(live: Live): void {
    if (this.#live !== live) return;
    this.#live = undefined;
    if (this.#closed) return;
    const lastWords = live.link.lastWords();
    const words = lastWords === undefined ? '' : ` Its last words on stderr: "${lastWords}".`;
    this.log?.warn({ mcpServer: this.name }, `MCP server "${this.name}" stopped; it is started again on the next call.${words}`);
  }

  #drop(live: Live): void {
    if (this.#live !== live) return;
    this.#live = undefined;
    void live.client.close().catch(() => undefined);
  }
}
