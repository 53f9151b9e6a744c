import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { McpServerConfig } from './mcp-config-file.js';

/** How much of a stdio server's stderr is kept, to quote when it fails. */
const STDERR_TAIL_CHARS = 4_096;
const LAST_WORDS_MAX = 300;

/** A transport to one server, and what a failure message can say about it. */
export interface ServerLink {
  transport: Transport;
  /** The last line a stdio server wrote to stderr, if any. */
  lastWords(): string | undefined;
  /** The process id of a stdio server once started. */
  pid(): number | undefined;
}

/** The server's address for log lines and messages: the command, or the URL without credentials or query. */
export function serverLabel(server: McpServerConfig): string {
  if (server.transport === 'stdio') return `stdio: ${[server.command, ...server.args].join(' ')}`;
  const url = new URL(server.url);
  return `http: ${url.origin}${url.pathname}`;
}

/**
 * A fresh transport to `server`. A stdio server's stderr is read (a pipe nobody reads would stall
 * it once full) and its tail kept for error messages.
 */
export function openLink(server: McpServerConfig): ServerLink {
  if (server.transport === 'http') {
    const transport = new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers: server.headers } });
    return { transport, lastWords: () => undefined, pid: () => undefined };
  }
  const transport = new StdioClientTransport({
    command: server.command,
    args: server.args,
    env: server.env,
    stderr: 'pipe',
    ...(server.cwd === undefined ? {} : { cwd: server.cwd }),
  });
  let tail = '';
  transport.stderr?.on('data', (chunk: Buffer | string) => {
    tail = (tail + chunk.toString()).slice(-STDERR_TAIL_CHARS);
  });
  const lastWords = (): string | undefined => {
    const line = tail.split('\n').map((part) => part.trim()).filter(Boolean).at(-1);
    return line === undefined ? undefined : line.slice(0, LAST_WORDS_MAX);
  };
  return { transport, lastWords, pid: () => transport.pid ?? undefined };
}
