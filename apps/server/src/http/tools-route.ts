import type { FastifyInstance } from 'fastify';
import type { ToolList, ToolListing } from '@interthought/protocol';
import { isMcpTool } from '../tools/mcp/mcp-tool.js';
import type { Tool } from '../tools/tool.js';
import { toolJsonSchema } from '../tools/tool-json-schema.js';

function listingOf(tool: Tool): ToolListing {
  const common = { name: tool.name, description: tool.description, inputSchema: toolJsonSchema(tool), readOnly: tool.effect === 'read' };
  return isMcpTool(tool) ? { ...common, source: 'mcp', server: tool.mcp.server } : { ...common, source: 'builtin' };
}

/** `GET /api/tools`: every tool agents may call, built in or from an MCP server, with its input's JSON Schema. */
export async function toolsRoute(app: FastifyInstance): Promise<void> {
  app.get('/tools', async (): Promise<ToolList> => ({ tools: app.tools.list().map(listingOf) }));
}
