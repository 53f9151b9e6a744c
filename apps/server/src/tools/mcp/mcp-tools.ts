import type { Tool as McpToolInfo } from '@modelcontextprotocol/sdk/types.js';
import type { McpConfig } from '../../config/mcp-config.js';
import type { ToolRegistry } from '../tool-registry.js';
import { messageOf } from './failure-reasons.js';
import { McpConnection, McpStartError, type McpLog } from './mcp-connection.js';
import type { McpTool } from './mcp-tool.js';
import { ServerTools, type ToolChanges } from './server-tools.js';
import { serverLabel } from './transports.js';

/** The MCP servers of a running Interthought server and the tools registered from them. */
export interface McpTools {
  readonly connections: McpConnection[];
  /** The tools registered now (a server that starts late adds its own, one whose tools change changes them). */
  readonly tools: McpTool[];
  /** Disconnect every server (their processes end) and stop trying those that did not start. */
  close(): Promise<void>;
}

/**
 * When a server that did not start is tried again: `firstMs` after its failure, then twice as
 * long each time up to `maxMs`. A server started after Interthought (another container, a service
 * still booting) then joins on its own, without a restart.
 */
export interface McpRetry {
  firstMs: number;
  maxMs: number;
}

export const MCP_RETRY: McpRetry = { firstMs: 5_000, maxMs: 300_000 };

/** How many tool names a start-up line spells out. */
const NAMES_SHOWN = 10;

function listed(names: readonly string[]): string {
  return names.slice(0, NAMES_SHOWN).join(', ') + (names.length > NAMES_SHOWN ? `, … (${names.length - NAMES_SHOWN} more)` : '');
}

function describeChanges(changes: ToolChanges): string {
  const parts = [
    ...(changes.added.length > 0 ? [`added ${listed(changes.added)}`] : []),
    ...(changes.removed.length > 0 ? [`removed ${listed(changes.removed)}`] : []),
    ...(changes.changed.length > 0 ? [`changed ${listed(changes.changed)}`] : []),
  ];
  return parts.length > 0 ? parts.join('; ') : 'nothing that agents see';
}

function seconds(ms: number): string {
  return ms % 1_000 === 0 ? `${ms / 1_000} s` : `${(ms / 1_000).toFixed(1)} s`;
}

/** Start `connection` and list its tools; the reason in words when either fails. */
async function tryStart(connection: McpConnection): Promise<{ tools: McpToolInfo[] } | { reason: string }> {
  try {
    await connection.connect();
    return { tools: await connection.listTools() };
  } catch (error) {
    return { reason: error instanceof McpStartError ? error.message : `listing its tools failed: ${messageOf(error)}` };
  }
}

/**
 * Connect to every server of `config` at once, list their tools and register each in `registry`
 * as `mcp__<server>__<tool>`. The tools stay registered for the server's lifetime, through crashes
 * (a call reconnects). A server that does not start is logged and tried again in the background
 * (`retry`), never fatal. Resolves once every server has started or failed once.
 */
export async function addMcpTools(registry: ToolRegistry, config: McpConfig, log: McpLog, retry: McpRetry = MCP_RETRY): Promise<McpTools> {
  const connections = config.servers.map((server) => new McpConnection(server, config.timeoutMs, log));
  const servers = connections.map((connection) => new ServerTools(connection, registry, (message) => log.warn({ mcpServer: connection.name }, message)));
  const timers = new Set<NodeJS.Timeout>();
  let closed = false;

  const register = (index: number, infos: McpToolInfo[], attempt: number): void => {
    const connection = connections[index]!;
    const names = servers[index]!.update(infos).added;
    const late = attempt > 1 ? ` started at try ${attempt}` : '';
    log.info(
      { mcpServer: connection.name },
      `MCP server "${connection.name}" (${serverLabel(connection.server)})${late}: ${names.length} tool${names.length === 1 ? '' : 's'}${names.length > 0 ? `: ${listed(names)}` : ''}`,
    );
    // From now on its tools follow what it lists (a server that declares tools.listChanged says when).
    connection.onToolsChanged = () => void relist(index);
  };

  /** The server said its tools changed: list them again and bring the registry in line. */
  const relist = async (index: number): Promise<void> => {
    const connection = connections[index]!;
    try {
      const infos = await connection.listTools();
      if (closed) return;
      log.info({ mcpServer: connection.name }, `MCP server "${connection.name}" changed its tools: ${describeChanges(servers[index]!.update(infos))}.`);
    } catch (error) {
      if (!closed) log.warn({ mcpServer: connection.name }, `MCP server "${connection.name}" said its tools changed, but listing them failed: ${messageOf(error)}. Its tools stay as they were.`);
    }
  };

  /** The `attempt`th try of `connection` ended: register its tools, or log why not and try again after `delayMs`. */
  const settle = (index: number, started: Awaited<ReturnType<typeof tryStart>>, attempt: number, delayMs: number): void => {
    if (closed) return;
    const connection = connections[index]!;
    if ('tools' in started) {
      register(index, started.tools, attempt);
      return;
    }
    const fields = { mcpServer: connection.name };
    if (attempt === 1) {
      log.warn(
        fields,
        `MCP server "${connection.name}" (${serverLabel(connection.server)}) did not start: ${started.reason}. Interthought runs without its tools until it does: it is tried again in ${seconds(delayMs)}, then less and less often (at least every ${seconds(retry.maxMs)}); or fix the server or ${config.file} and restart.`,
      );
    } else {
      log.info(fields, `MCP server "${connection.name}" still did not start at try ${attempt}: ${started.reason}. Next try in ${seconds(delayMs)}.`);
    }
    const timer = setTimeout(() => {
      timers.delete(timer);
      void tryStart(connection).then((next) => settle(index, next, attempt + 1, Math.min(delayMs * 2, retry.maxMs)));
    }, delayMs);
    // A server that never starts must not keep Interthought's process alive.
    timer.unref();
    timers.add(timer);
  };

  // Every server at once; their tools are registered in the configuration's order.
  const firstTries = await Promise.all(connections.map(tryStart));
  firstTries.forEach((started, index) => settle(index, started, 1, Math.min(retry.firstMs, retry.maxMs)));
  return {
    connections,
    get tools() {
      return servers.flatMap((server) => server.tools);
    },
    close: async () => {
      closed = true;
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      await Promise.all(connections.map((connection) => connection.close()));
    },
  };
}
