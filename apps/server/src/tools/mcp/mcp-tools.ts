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
  readonly tools: McpTool[];
  /** Disconnect every server (their processes end). */
  close(): Promise<void>;
}

/** How many tool names a start-up line spells out. */
const NAMES_SHOWN = 10;

/** Start `connection` and list its tools; a server that fails is logged and left out, never fatal. */
async function toolsOf(connection: McpConnection, config: McpConfig, log: McpLog): Promise<McpToolInfo[] | undefined> {
  try {
    await connection.connect();
    return await connection.listTools();
  } catch (error) {
    const reason = error instanceof McpStartError ? error.message : `listing its tools failed: ${messageOf(error)}`;
    log.warn(
      { mcpServer: connection.name },
      `MCP server "${connection.name}" (${serverLabel(connection.server)}) did not start: ${reason}. Interthought runs without its tools; fix the server or ${config.file} and restart.`,
    );
    await connection.close();
    return undefined;
  }
}

/**
 * Connect to every server of `config` at once, list their tools and register each in `registry`
 * as `mcp__<server>__<tool>`. The tools stay registered for the server's lifetime, through crashes
 * (a call reconnects). Resolves once every server has started or failed.
 */
export async function addMcpTools(registry: ToolRegistry, config: McpConfig, log: McpLog): Promise<McpTools> {
  const connections = config.servers.map((server) => new McpConnection(server, config.timeoutMs, log));
  const listed = await Promise.all(connections.map((connection) => toolsOf(connection, config, log)));
  const tools: McpTool[] = [];
  connections.forEach((connection, index) => {
    const infos = listed[index];
    if (infos === undefined) return;
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
    log.info(
      { mcpServer: connection.name },
      `MCP server "${connection.name}" (${serverLabel(connection.server)}): ${names.length} tool${names.length === 1 ? '' : 's'}${names.length > 0 ? `: ${shown}` : ''}`,
    );
  });
  return {
    connections,
    tools,
    close: async () => {
      await Promise.all(connections.map((connection) => connection.close()));
    },
  };
}
