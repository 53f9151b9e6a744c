import type { Step } from '@interthought/protocol';
import type { Agent, AgentRunContext } from '@interthought/agent';
import { streamStep } from '../../../src/agents/stream-text.js';
import { observeTool } from '../../../src/agents/tool-steps.js';
import { TestAgent } from '../support/test-agents.js';
import type { Gates } from './contract-agents.js';

/** One call the `caller` makes: the tool, its input, and whether it waits at its task's gate first. */
export interface PlannedToolCall {
  tool: string;
  input: Record<string, unknown>;
  gated?: boolean;
}

/** The task of a `caller` session: the calls it makes, in order. */
export function callerTask(calls: readonly PlannedToolCall[]): string {
  return JSON.stringify({ calls });
}

/** What the `caller` answers with: the content of every observation on its chain, joined. */
export function callerAnswer(chain: readonly Pick<Step, 'kind' | 'content'>[]): string {
  return `Observed: ${chain.filter((step) => step.kind === 'observation').map((step) => step.content).join(' | ')}`;
}

/**
 * Makes the tool calls its task lists, one after another, driven by its chain like a real agent:
 * a thought, then each call (a `tool_call`, then the tool's observation), then an answer. A chain
 * that ends in a call nobody ran (approved, corrected) runs it first; a refusal's observation
 * counts as that call's, so it goes on with the next. A `gated` call waits at the task's gate.
 */
export function callerAgent(gates: Gates): Agent {
  return new TestAgent('caller', async (context: AgentRunContext) => {
    const { calls } = JSON.parse(context.task) as { calls: PlannedToolCall[] };
    const chain: Pick<Step, 'kind' | 'content' | 'tool'>[] = [...context.chain];
    for (;;) {
      const last = chain.at(-1);
      if (last === undefined) {
        await streamStep(context.sink, 'thought', 'I will make the calls.');
        chain.push({ kind: 'thought', content: 'I will make the calls.' });
      } else if (last.kind === 'tool_call') {
        const tool = last.tool ?? '';
        const check = context.tools.checkInput(tool, last.content);
        const outcome = check.ok ? await observeTool(context, tool, check.input) : undefined;
        chain.push({ kind: 'observation', content: outcome === undefined ? 'bad input' : outcome.ok ? outcome.result.text : outcome.error });
      } else if (last.kind === 'final_answer') {
        return;
      } else {
        const made = chain.filter((step) => step.kind === 'tool_call').length;
        const next = calls[made];
        if (next === undefined) {
          await streamStep(context.sink, 'final_answer', callerAnswer(chain));
          return;
        }
        if (next.gated === true) await gates.of(context.task).pass(context.signal);
        const content = JSON.stringify(next.input);
        await streamStep(context.sink, 'tool_call', content, { tool: next.tool });
        chain.push({ kind: 'tool_call', content, tool: next.tool });
      }
    }
  });
}
