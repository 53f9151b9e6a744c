import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';

/*
 * What went wrong with an MCP server, in words an operator (start-up log) or a user and a model
 * (an observation) can act on.
 */

/** An error's message, with the cause (`connect ECONNREFUSED …`) that a bare `fetch failed` hides. */
export function messageOf(error: unknown): string {
  if (error instanceof McpError) return error.message.replace(/^MCP error -?\d+: /, '');
  if (!(error instanceof Error)) return String(error);
  const cause = (error as { cause?: { code?: unknown; message?: unknown } }).cause;
  const why = typeof cause?.message === 'string' && cause.message !== '' ? cause.message : typeof cause?.code === 'string' ? cause.code : undefined;
  return why !== undefined && !error.message.includes(why) ? `${error.message} (${why})` : error.message;
}

export function isTimeout(error: unknown): boolean {
  return error instanceof McpError && error.code === ErrorCode.RequestTimeout;
}

export function isConnectionClosed(error: unknown): boolean {
  return error instanceof McpError && error.code === ErrorCode.ConnectionClosed;
}

/** Whether the server itself answered with a JSON-RPC error (the connection is fine). */
export function isServerAnswer(error: unknown): boolean {
  return error instanceof McpError && !isTimeout(error) && !isConnectionClosed(error);
}

function quoted(lastWords: string | undefined): string {
  return lastWords === undefined ? '' : `; its last words on stderr: "${lastWords}"`;
}

/** Why a server did not start (or restart): for the start-up log line and for a call's observation. */
export function startFailure(error: unknown, timeoutMs: number, lastWords: string | undefined): string {
  if (isTimeout(error)) return `it did not answer "initialize" within ${timeoutMs} ms${quoted(lastWords)}`;
  if (isConnectionClosed(error)) return `it exited before answering "initialize"${quoted(lastWords)}`;
  const message = messageOf(error);
  if (/\bENOENT\b/.test(message)) return `its command was not found (${message})`;
  return `${message}${quoted(lastWords)}`;
}

/** The observation of a call that the server (or the way to it) failed. */
export function callFailure(server: string, tool: string, error: unknown, timeoutMs: number, lastWords: string | undefined): string {
  if (isTimeout(error)) {
    return `MCP server "${server}" did not answer the ${tool} call within ${timeoutMs} ms, so it was cancelled (INTERTHOUGHT_MCP_TIMEOUT_MS).`;
  }
  if (isConnectionClosed(error)) {
    return `MCP server "${server}" stopped during the ${tool} call${quoted(lastWords)}. It is started again on the next call.`;
  }
  if (isServerAnswer(error)) return `MCP server "${server}" refused the ${tool} call: ${messageOf(error)}`;
  return `MCP server "${server}" could not be reached for the ${tool} call: ${messageOf(error)}. It is reconnected on the next call.`;
}
