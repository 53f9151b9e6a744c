import { DELEGATE_TOOL } from '@interthought/protocol';
import type { AgentRunContext } from '@interthought/agent';
import { streamStep } from '../stream-text.js';
import { ToolError } from '../../tools/tool.js';
import type { ChainStep } from './chain-recorder.js';

/** What one delegate call gave: the observation's text and structured result. */
interface DelegateOutcome {
  text: string;
  result: unknown;
}

/**
 * Run a batch of delegate calls (PROTOCOL.md §24.1): an LLM's parallel `delegate` calls are one
 * batch, so their sub-agents run at the same time (the server's `delegate` tool runs each, in the
 * scope of its call's step), and once every one has finished their observations follow in call
 * order. A call whose input fails the schema, or that the server refuses, gets its error as its
 * observation, as any tool's would.
 */
export async function runDelegateBatch(context: AgentRunContext, calls: readonly ChainStep[]): Promise<void> {
  const outcomes = await Promise.all(calls.map((call) => delegateOnce(context, call)));
  for (const outcome of outcomes) await streamStep(context.sink, 'observation', outcome.text, { tool: DELEGATE_TOOL, result: outcome.result });
}

async function delegateOnce(context: AgentRunContext, call: ChainStep): Promise<DelegateOutcome> {
  const check = context.tools.checkInput(DELEGATE_TOOL, call.content);
  if (!check.ok) return { text: `Error: ${check.message}`, result: { error: check.message, details: check.details } };
  const tool = context.tools.get(DELEGATE_TOOL);
  if (tool === undefined) return { text: 'Error: this server runs no sub-agents.', result: { error: 'this server runs no sub-agents' } };
  context.signal.throwIfAborted();
  try {
    const { output, text } = await tool.execute(check.input, context.signal, { stepId: call.stepId });
    return { text, result: output };
  } catch (error) {
    if (context.signal.aborted || !(error instanceof ToolError)) throw error;
    const output = (error as ToolError & { output?: unknown }).output;
    return { text: `Error: ${error.message}`, result: output ?? { error: error.message } };
  }
}

/** Split unanswered calls into runs: consecutive delegate calls are one batch, every other call runs alone. */
export function callGroups(calls: readonly ChainStep[]): ChainStep[][] {
  const groups: ChainStep[][] = [];
  for (const call of calls) {
    const last = groups.at(-1);
    if (call.tool === DELEGATE_TOOL && last !== undefined && last[0]!.tool === DELEGATE_TOOL) last.push(call);
    else groups.push([call]);
  }
  return groups;
}
