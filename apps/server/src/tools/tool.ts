import type { z } from 'zod';

/** What a tool returns: structured output (JSON) and the text an observation shows. */
export interface ToolResult {
  output: unknown;
  text: string;
}

/**
 * A tool an agent may call. `inputSchema` is the single definition of valid input: it checks
 * agent calls and user corrections of `tool_call` steps, and becomes an LLM's tool parameters.
 */
export interface Tool<Input = any> {
  name: string;
  description: string;
  inputSchema: z.ZodType<Input>;
  /** Run the tool. Must stop promptly when `signal` aborts. Throws a `ToolError` for bad input it can explain. */
  execute(input: Input, signal: AbortSignal): Promise<ToolResult>;
}

/** A failure the tool explains to its caller (e.g. "division by zero"); shown as the observation. */
export class ToolError extends Error {
  override readonly name = 'ToolError';
}
