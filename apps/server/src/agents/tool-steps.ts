import type { AgentRunContext } from '@interthought/agent';
import { streamStep } from './stream-text.js';
import { ToolError, type ToolResult } from '../tools/tool.js';
import { traceToolCall } from '../tracing/tool-call-span.js';

/** What running a tool produced: its result, or the error the observation reported. */
export type ToolOutcome = { ok: true; result: ToolResult } | { ok: false; error: string; output?: unknown };

/**
 * Run a tool on already-checked input and stream its `observation` step. Used by every agent,
 * both after its own `tool_call` step and when the chain ends in a user-corrected tool call.
 * A tool's own error becomes the observation (the agent can react to it); an abort propagates.
 */
export async function observeTool(context: AgentRunContext, toolName: string, input: unknown): Promise<ToolOutcome> {
  const tool = context.tools.get(toolName);
  let outcome: ToolOutcome;
  if (!tool) {
    outcome = { ok: false, error: `Unknown tool "${toolName}".` };
  } else {
    // A run that ended (e.g. its call now waits for approval) must not run the tool at all.
    context.signal.throwIfAborted();
    try {
      outcome = { ok: true, result: await traceToolCall(tool, context.signal, () => tool.execute(input, context.signal)) };
    } catch (error) {
      if (context.signal.aborted) throw error;
      if (!(error instanceof ToolError)) throw error;
      outcome = error.output === undefined ? { ok: false, error: error.message } : { ok: false, error: error.message, output: error.output };
    }
  }
  const text = outcome.ok ? outcome.result.text : `Error: ${outcome.error}`;
  const result = outcome.ok ? outcome.result.output : (outcome.output ?? { error: outcome.error });
  await streamStep(context.sink, 'observation', text, { tool: toolName, result });
  return outcome;
}
