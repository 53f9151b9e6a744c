import type { ErrorDetail } from '@interthought/protocol';
import type { ZodType } from 'zod';

/** What running a tool gives back: structured output (JSON) and the text its observation shows. */
export interface ToolResult {
  output: unknown;
  text: string;
}

/** A tool's input checked against its schema: the parsed input, or why it is refused. */
export type ToolInputCheck = { ok: true; input: unknown } | { ok: false; message: string; details: ErrorDetail[] };

/** Which call a tool runs for: the `tool_call` step the agent wrote for it (a `delegate` call's step is its sub-agent's scope, PROTOCOL.md §24). */
export interface ToolCallContext {
  readonly stepId: string;
}

/** A tool as an agent uses it: offered to a model by name, description and input schema, then run. */
export interface AgentTool {
  readonly name: string;
  readonly description: string;
  /** The single definition of valid input; a model is offered it as JSON Schema. */
  readonly inputSchema: ZodType;
  /** The input's JSON Schema when the tool came with one (an MCP server's), offered to a model as it is. */
  readonly jsonSchema?: Record<string, unknown>;
  /**
   * Run on input `checkInput` accepted. Stops promptly when `signal` aborts; throws an error its
   * observation can show. `call` names the agent's `tool_call` step; a tool that needs it (the
   * server's `delegate`, whose sub-agent's scope is that step) refuses to run without it.
   */
  execute(input: unknown, signal: AbortSignal, call?: ToolCallContext): Promise<ToolResult>;
}

/** The tools a run may call, by name (the server's tool registry is one). */
export interface AgentToolbox {
  get(name: string): AgentTool | undefined;
  list(): readonly AgentTool[];
  /** Check tool input given as JSON text (a `tool_call` step's content) against the tool's schema. */
  checkInput(name: string, jsonText: string): ToolInputCheck;
}
