import type { Tool as McpToolInfo } from '@modelcontextprotocol/sdk/types.js';
import type { Tool } from '../tool.js';
import { toolResultOf } from './call-result.js';
import { inputCheckOf, type JsonSchemaObject, type McpArguments } from './input-schema.js';
import type { McpConnection } from './mcp-connection.js';

/** A tool an MCP server offers, registered under its `mcp__<server>__<tool>` name. */
export interface McpTool extends Tool<McpArguments> {
  /** Where it comes from: the server's name in the MCP config file and the tool's own name there. */
  readonly mcp: { server: string; tool: string };
  jsonSchema: JsonSchemaObject;
}

export function isMcpTool(tool: Pick<Tool, 'name'>): tool is McpTool {
  return 'mcp' in tool && typeof tool.mcp === 'object' && tool.mcp !== null;
}

/**
 * `info` (as `tools/list` gave it) as a registry `Tool`. It only reads when the server says so
 * (`readOnlyHint: true`); anything else counts as a change, so by default it waits for approval.
 */
export function createMcpTool(connection: McpConnection, info: McpToolInfo, name: string): McpTool {
  const jsonSchema = info.inputSchema as JsonSchemaObject;
  return {
    name,
    description: info.description ?? info.title ?? info.annotations?.title ?? `The ${info.name} tool of MCP server "${connection.name}".`,
    effect: info.annotations?.readOnlyHint === true ? 'read' : 'change',
    inputSchema: inputCheckOf(jsonSchema).schema,
    jsonSchema,
    mcp: { server: connection.name, tool: info.name },
    async execute(input, signal) {
      return toolResultOf(await connection.callTool(info.name, input, signal));
    },
  };
}
