import type { ToolInputCheck } from '@interthought/agent';
import { issuesToDetails } from '@interthought/protocol';
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
    const tool = this.#tools.get(name);
    if (!tool) return { ok: false, message: `Unknown tool "${name}".`, details: [{ path: ['tool'], message: 'Unknown tool' }] };
    let data: unknown;
    try {
      data = JSON.parse(jsonText);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      return { ok: false, message: `The input of ${name} must be JSON: ${reason}`, details: [{ path: [], message: reason }] };
    }
    const parsed = tool.inputSchema.safeParse(data);
    if (parsed.success) return { ok: true, input: parsed.data };
    const details = issuesToDetails(parsed.error.issues);
    const first = details[0];
    const where = first && first.path.length ? `${first.path.join('.')}: ` : '';
    return { ok: false, message: `Invalid input for ${name}: ${where}${first?.message ?? 'invalid'}`, details };
  }
}
