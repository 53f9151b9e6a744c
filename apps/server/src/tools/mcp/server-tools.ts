import type { Tool as McpToolInfo } from '@modelcontextprotocol/sdk/types.js';
import type { ToolRegistry } from '../tool-registry.js';
import type { McpConnection } from './mcp-connection.js';
import { createMcpTool, type McpTool } from './mcp-tool.js';
import { mcpToolName } from './tool-names.js';

/** What a new `tools/list` changed, by registry name. */
export interface ToolChanges {
  added: string[];
  removed: string[];
  changed: string[];
}

/** A listed tool as it is offered: what a change to it changes for agents and listings. */
function offerOf(info: McpToolInfo): string {
  return JSON.stringify([info.description, info.title, info.inputSchema, info.annotations?.readOnlyHint, info.annotations?.title]);
}

/**
 * The tools of one MCP server in the registry, kept as its latest `tools/list` says: registered
 * under their `mcp__<server>__<tool>` names, a tool keeping its name while the server lists it.
 */
export class ServerTools {
  /** By the tool's own name on the server. */
  readonly #tools = new Map<string, { tool: McpTool; offer: string }>();

  constructor(
    private readonly connection: McpConnection,
    private readonly registry: ToolRegistry,
    private readonly warn: (message: string) => void,
  ) {}

  get tools(): McpTool[] {
    return [...this.#tools.values()].map((entry) => entry.tool);
  }

  /** Make the registry hold exactly what `infos` lists; returns what changed. */
  update(infos: readonly McpToolInfo[]): ToolChanges {
    const changes: ToolChanges = { added: [], removed: [], changed: [] };
    const listed = new Set<string>();
    for (const info of infos) {
      if (listed.has(info.name)) {
        this.warn(`MCP server "${this.connection.name}" lists the tool "${info.name}" twice; the second is left out.`);
        continue;
      }
      listed.add(info.name);
      const offer = offerOf(info);
      const known = this.#tools.get(info.name);
      if (known?.offer === offer) continue;
      const name = known?.tool.name ?? mcpToolName(this.connection.name, info.name, (candidate) => this.registry.get(candidate) !== undefined);
      if (known === undefined && this.registry.get(name) !== undefined) {
        this.warn(`MCP server "${this.connection.name}" lists the tool "${info.name}", whose name ${name} is taken; it is left out.`);
        continue;
      }
      if (known !== undefined) this.registry.unregister(name);
      const tool = createMcpTool(this.connection, info, name);
      this.registry.register(tool);
      this.#tools.set(info.name, { tool, offer });
      (known === undefined ? changes.added : changes.changed).push(name);
    }
    for (const [toolName, { tool }] of this.#tools) {
      if (listed.has(toolName)) continue;
      this.registry.unregister(tool.name);
      this.#tools.delete(toolName);
      changes.removed.push(tool.name);
    }
    return changes;
  }
}
