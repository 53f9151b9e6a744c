import { ASK_USER_TOOL } from '@interthought/protocol';
import type { AgentTool, AgentToolbox, ToolInputCheck } from '@interthought/agent';

/**
 * The tools an agent may call, chosen by names or globs (`*` matches any run of characters):
 * `["calculator", "mcp__github__*"]`. Matched against the names the server offers tools by, the
 * built-in ones and the MCP servers' (`mcp__<server>__<tool>`). `ask_user` is always among them:
 * every agent is offered it (PROTOCOL.md §25.1), whatever its list names.
 */
export class ToolSelection {
  readonly #patterns: readonly RegExp[];

  constructor(readonly globs: readonly string[]) {
    this.#patterns = globs.map(globPattern);
  }

  allows(name: string): boolean {
    return name === ASK_USER_TOOL || this.#patterns.some((pattern) => pattern.test(name));
  }

  /** The toolbox a run sees: only the selected tools are listed, found or run. */
  of(tools: AgentToolbox): AgentToolbox {
    return {
      get: (name: string): AgentTool | undefined => (this.allows(name) ? tools.get(name) : undefined),
      list: (): readonly AgentTool[] => tools.list().filter((tool) => this.allows(tool.name)),
      checkInput: (name: string, jsonText: string): ToolInputCheck => {
        if (this.allows(name)) return tools.checkInput(name, jsonText);
        const message = `The tool "${name}" is not one this agent may call.`;
        return { ok: false, message, details: [{ path: [], message }] };
      },
    };
  }
}

function globPattern(glob: string): RegExp {
  const source = glob.split('*').map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('.*');
  return new RegExp(`^${source}$`);
}
