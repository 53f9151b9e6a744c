import type { AgentRunContext, ToolCallContext } from '@interthought/agent';
import { streamStep } from './stream-text.js';
import { ToolError, type ToolResult } from '../tools/tool.js';
import { traceToolCall } from '../tracing/tool-call-span.js';

/** What running a tool produced: its result, or the error the observation reported (with the structured output a tool gives its failures). */
export type ToolOutcome = { ok: true; result: ToolResult } | { ok: false; error: string; output?: unknown };

/**
 * Run a tool on already-checked input, without writing anything. `call` names the tool_call step
 * (the `delegate` tool needs it: that step is its sub-agent's scope). A tool's own error becomes
 * an outcome the observation reports (the agent can react to it); an abort propagates.
 */
export async function runTool(context: AgentRunContext, toolName: string, input: unknown, call?: ToolCallContext): Promise<ToolOutcome> {
  const tool = context.tools.get(toolName);
  if (!tool) return { ok: false, error: `Unknown tool "${toolName}".` };
  // A run that ended (e.g. its call now waits for approval) must not run the tool at all.
  context.signal.throwIfAborted();
  try {
    return { ok: true, result: await traceToolCall(tool, context.signal, () => tool.execute(input, context.signal, call)) };
  } catch (error) {
    if (context.signal.aborted) throw error;
    if (!(error instanceof ToolError)) throw error;
    return error.output === undefined ? { ok: false, error: error.message } : { ok: false, error: error.message, output: error.output };
  }
}

/** What the observation of an outcome holds: the tool's text and structured output, or its error. */
export function observationOf(outcome: ToolOutcome): { text: string; result: unknown } {
  return outcome.ok
    ? { text: outcome.result.text, result: outcome.result.output }
    : { text: `Error: ${outcome.error}`, result: outcome.output ?? { error: outcome.error } };
}

/** Stream the `observation` step of a tool's outcome. */
export async function writeObservation(context: AgentRunContext, toolName: string, outcome: ToolOutcome): Promise<void> {
  const { text, result } = observationOf(outcome);
  await streamStep(context.sink, 'observation', text, { tool: toolName, result });
}

/**
 * Run a tool and stream its `observation` step. Used by every agent, both after its own
 * `tool_call` step and when the chain ends in a user-corrected tool call. A batch of calls
 * (parallel delegate calls) runs every tool first with `runTool`, then writes in call order.
 */
export async function observeTool(context: AgentRunContext, toolName: string, input: unknown, call?: ToolCallContext): Promise<ToolOutcome> {
  const outcome = await runTool(context, toolName, input, call);
  await writeObservation(context, toolName, outcome);
  return outcome;
}
