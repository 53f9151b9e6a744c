import { issuesToDetails } from '@interthought/protocol';
import type { AgentTool, AgentToolbox, ToolInputCheck } from '../agent-tools.js';

/**
 * Check tool input given as JSON text (a `tool_call` step's content) against the tool's zod schema:
 * the one check of every toolbox, the server's registry and a worker's alike.
 */
export function checkToolInput(tool: Pick<AgentTool, 'inputSchema'> | undefined, name: string, jsonText: string): ToolInputCheck {
  if (tool === undefined) return { ok: false, message: `Unknown tool "${name}".`, details: [{ path: ['tool'], message: 'Unknown tool' }] };
  let data: unknown;
  try {
    data = JSON.parse(jsonText) as unknown;
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return { ok: false, message: `The input of ${name} must be JSON: ${reason}`, details: [{ path: [], message: reason }] };
  }
  const parsed = tool.inputSchema.safeParse(data);
  if (parsed.success) return { ok: true, input: parsed.data };
  const details = issuesToDetails(parsed.error.issues);
  const first = details[0];
  const where = first !== undefined && first.path.length > 0 ? `${first.path.join('.')}: ` : '';
  return { ok: false, message: `Invalid input for ${name}: ${where}${first?.message ?? 'invalid'}`, details };
}

/** A toolbox of `tools`, for a worker's own tools: input is checked against each tool's zod schema. */
export function createToolbox(tools: readonly AgentTool[]): AgentToolbox {
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  return {
    get: (name) => byName.get(name),
    list: () => [...byName.values()],
    checkInput: (name, jsonText) => checkToolInput(byName.get(name), name, jsonText),
  };
}

/**
 * The worker's toolbox as a run sees it: a tool's `execute` first waits until the server cleared
 * the run's last `tool_call` (PROTOCOL.md Part II §A6.1). A call that waits for approval aborts the
 * run instead, so the tool never runs — exactly as an in-process agent's call stops at `end()`.
 */
export function gatedToolbox(tools: AgentToolbox, untilCleared: () => Promise<void>): AgentToolbox {
  const wrapped = new Map<AgentTool, AgentTool>();
  const gate = (tool: AgentTool): AgentTool => {
    let gated = wrapped.get(tool);
    if (gated === undefined) {
      gated = Object.assign(Object.create(tool) as AgentTool, {
        execute: async (input: unknown, signal: AbortSignal) => {
          await untilCleared();
          signal.throwIfAborted();
          return tool.execute(input, signal);
        },
      });
      wrapped.set(tool, gated);
    }
    return gated;
  };
  return {
    get: (name) => {
      const tool = tools.get(name);
      return tool === undefined ? undefined : gate(tool);
    },
    list: () => tools.list().map(gate),
    checkInput: (name, jsonText) => tools.checkInput(name, jsonText),
  };
}
