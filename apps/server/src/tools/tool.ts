import type { ToolCallContext, ToolResult } from '@interthought/agent';
import type { z } from 'zod';

export type { ToolResult };

/** Whether a tool only reads or changes something (see `Tool.effect`). */
export type ToolEffect = 'read' | 'change';

/**
 * A tool an agent may call. `inputSchema` is the single definition of valid input: it checks
 * agent calls and user corrections of `tool_call` steps, and becomes an LLM's tool parameters.
 */
export interface Tool<Input = any> {
  name: string;
  description: string;
  /**
   * What running it does to the world: `read` only looks something up or computes; `change` acts
   * (writes, sends, buys). By default a `change` tool waits for the user's approval (PROTOCOL.md §19.1 "Policy").
   */
  effect: ToolEffect;
  inputSchema: z.ZodType<Input>;
  /**
   * The input's JSON Schema when the tool came with one (an MCP server's): offered to models and
   * listed by `GET /api/tools` as it is. Without it, the JSON Schema is derived from `inputSchema`.
   */
  jsonSchema?: Record<string, unknown>;
  /** Run the tool. Must stop promptly when `signal` aborts. Throws a `ToolError` for bad input it can explain. `call` names the agent's tool_call step. */
  execute(input: Input, signal: AbortSignal, call?: ToolCallContext): Promise<ToolResult>;
}

/**
 * A failure the tool explains to its caller (e.g. "division by zero"); shown as the observation.
 * `output` is the structured result its observation carries, when the tool defines one for its
 * failures (a `delegate` call that starts nothing: `{ subagent, status: "failed", error }`).
 */
export class ToolError extends Error {
  override readonly name = 'ToolError';
  readonly output: unknown;

  constructor(message: string, options?: { output?: unknown }) {
    super(message);
    this.output = options?.output;
  }
}
