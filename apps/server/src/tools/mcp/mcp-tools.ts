import type { Tool as McpToolInfo } from '@modelcontextprotocol/sdk/types.js';
import type { McpConfig } from '../../config.js';
import type { ToolRegistry } from '../tool-registry.js';
import { messageOf } from './failure-reasons.js';
import { McpConnection, McpStartError, type McpLog } from './mcp-connection.js';
import { createMcpTool, type McpTool } from './mcp-tool.js';
import { mcpToolName } from './tool-names.js';
import { serverLabel } from './transports.js';

/** The MCP servers of a running Interthought server and the tools registered from them. */
export interface McpTools {
  readonly connections: McpConnection[];
  /** The tools registered so far (a server that starts late adds its own when it does). */
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
  const tools: McpTool[] = [];
  const timers = new Set<NodeJS.Timeout>();
  let closed = false;

  const register = (connection: McpConnection, infos: McpToolInfo[], attempt: number): void => {
    const names: string[] = [];
    for (const info of infos) {
      const name = mcpToolName(connection.name, info.name, (candidate) => registry.get(candidate) !== undefined);
      if (registry.get(name) !== undefined) {
        log.warn({ mcpServer: connection.name }, `MCP server "${connection.name}" lists the tool "${info.name}" twice; the second is left out.`);
        continue;
      }
      const tool = createMcpTool(connection, info, name);
      registry.register(tool);
      tools.push(tool);
      names.push(name);
    }
    const shown = names.slice(0, NAMES_SHOWN).join(', ') + (names.length > NAMES_SHOWN ? `, … (${names.length - NAMES_SHOWN} more)` : '');
    const late = attempt > 1 ? ` started at try ${attempt}` : '';
    log.info(
      { mcpServer: connection.name },
      `MCP server "${connection.name}" (${serverLabel(connection.server)})${late}: ${names.length} tool${names.length === 1 ? '' : 's'}${names.length > 0 ? `: ${shown}` : ''}`,
    );
  };

  /** The `attempt`th try of `connection` ended: register its tools, or log why not and try again after `delayMs`. */
  const settle = (connection: McpConnection, started: Awaited<ReturnType<typeof tryStart>>, attempt: number, delayMs: number): void => {
    if (closed) return;
    if ('tools' in started) {
      register(connection, started.tools, attempt);
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
      void tryStart(connection).then((next) => settle(connection, next, attempt + 1, Math.min(delayMs * 2, retry.maxMs)));
    }, delayMs);
    // A server that never starts must not keep Interthought's process alive.
    timer.unref();
    timers.add(timer);
  };

  // Every server at once; their tools are registered in the configuration's order.
  const firstTries = await Promise.all(connections.map(tryStart));
  connections.forEach((connection, index) => settle(connection, firstTries[index]!, 1, Math.min(retry.firstMs, retry.maxMs)));
  return {
    connections,
    tools,
    close: async () => {
      closed = true;
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      await Promise.all(connections.map((connection) => connection.close()));
    },
  };
}
