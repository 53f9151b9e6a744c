import { checkToolInput, type ToolInputCheck } from '@interthought/agent';
import type { Tool } from './tool.js';

/** The tools shared by every agent, by name; agents see it as their `AgentToolbox`. */
export class ToolRegistry {
  readonly #tools = new Map<string, Tool>();

  register(tool: Tool): this {
    if (this.#tools.has(tool.name)) throw new Error(`Tool "${tool.name}" is already registered.`);
    this.#tools.set(tool.name, tool);
    return this;
  }

  /** Take a tool away (an MCP server stopped listing it); false when there was none of that name. */
  unregister(name: string): boolean {
    return this.#tools.delete(name);
  }

  get(name: string): Tool | undefined {
    return this.#tools.get(name);
  }

  list(): Tool[] {
    return [...this.#tools.values()];
  }

  /** Check tool input given as JSON text (a `tool_call` step's content) against the tool's schema. */
  checkInput(name: string, jsonText: string): ToolInputCheck {
    return checkToolInput(this.#tools.get(name), name, jsonText);
  }
}
