import { ASK_USER_TOOL, DELEGATE_TOOL, type Step, type StepKind } from '@interthought/protocol';
import type { Agent, AgentRunContext, StepSink } from '@interthought/agent';
import { writeTokens } from '../../../src/agents/stream-text.js';
import { observeTool } from '../../../src/agents/tool-steps.js';
import { ToolError } from '../../../src/tools/tool.js';
import { TestAgent } from '../support/test-agents.js';
import type { Gates } from './contract-agents.js';

/*
 * Scripted agents that delegate (PROTOCOL.md §24): `delegator` hands each part of its task (parts
 * split by "; ") to a `counter` sub-agent in one batch and joins their answers; `counter` answers
 * its task and counts how often it was called per task. Both are driven by their chain, like real
 * agents, so a corrected step really changes what follows and a resumed chain goes on from its head.
 *
 * A counter's task may carry words that make it act: `wait` holds it at its task's gate after its
 * thought, `tool` makes it call the adder, `deeper:<task>` makes it delegate `<task>` to a counter,
 * `question` makes it ask the user (`ask_user`, PROTOCOL.md §25.1) and answer with what it was told.
 */

/** How often each task's counter agent was called: a finished sub-agent is never called again. */
export class CallCounts {
  readonly #counts = new Map<string, number>();

  add(task: string): void {
    this.#counts.set(task, this.of(task) + 1);
  }

  of(task: string): number {
    return this.#counts.get(task) ?? 0;
  }
}

/** The `delegator`'s final answer: its batch's observations, joined. */
export function joinedAnswer(observations: readonly string[]): string {
  return `Joined: ${observations.join(' + ')}`;
}

/** A counter's final answer: its task and the chain it built on (so a correction in it shows). */
export function counterAnswer(task: string, chain: readonly Pick<Step, 'content'>[]): string {
  return `Answer to ${task} after: ${chain.map((step) => step.content).join(' | ')}`;
}

/** What a counter whose task says `question` asks the user. */
export function counterQuestion(task: string): { question: string } {
  return { question: `How should I do ${task}?` };
}

/** Stream a whole step and return its id. */
async function writeStep(sink: StepSink, kind: StepKind, text: string, extra?: { tool?: string; result?: unknown }): Promise<Step> {
  const writer = sink.start(kind, extra?.tool === undefined ? undefined : { tool: extra.tool });
  await writeTokens(writer, text);
  writer.end(extra?.result === undefined ? undefined : { result: extra.result });
  const step: Step = { stepId: writer.stepId, parentId: null, index: 0, kind, status: 'completed', content: text, revision: 0 };
  if (extra?.tool !== undefined) step.tool = extra.tool;
  if (extra?.result !== undefined) step.result = extra.result;
  return step;
}

function isDelegateCall(step: Step | undefined): boolean {
  return step !== undefined && step.kind === 'tool_call' && step.tool === DELEGATE_TOOL;
}

/** The delegate calls at the end of the chain: a batch whose observations are still to come. */
function trailingBatch(chain: readonly Step[]): Step[] {
  let start = chain.length;
  while (start > 0 && isDelegateCall(chain[start - 1])) start -= 1;
  return chain.slice(start);
}

/**
 * Run the batch the chain ends with, as an LLM agent runs parallel tool calls: every `delegate`
 * executes at once, then the observations follow in call order.
 */
async function joinBatch(context: AgentRunContext, chain: Step[]): Promise<void> {
  const batch = trailingBatch(chain);
  const delegate = context.tools.get(DELEGATE_TOOL);
  if (delegate === undefined) throw new Error('The run has no delegate tool');
  const outcomes = await Promise.all(
    batch.map(async (call) => {
      try {
        return await delegate.execute(JSON.parse(call.content), context.signal, { stepId: call.stepId });
      } catch (error) {
        if (context.signal.aborted || !(error instanceof ToolError)) throw error;
        return { output: error.output ?? { error: error.message }, text: `Error: ${error.message}` };
      }
    }),
  );
  for (const outcome of outcomes) chain.push(await writeStep(context.sink, 'observation', outcome.text, { tool: DELEGATE_TOOL, result: outcome.output }));
}

/** The observations of the batch before the chain's end. */
function lastObservations(chain: readonly Step[]): string[] {
  let start = chain.length;
  while (start > 0 && chain[start - 1]?.kind === 'observation') start -= 1;
  return chain.slice(start).map((step) => step.content);
}

function delegator(): Agent {
  const agent = new TestAgent('delegator', async (context) => {
    const chain = [...context.chain];
    for (;;) {
      const last = chain.at(-1);
      if (last === undefined) chain.push(await writeStep(context.sink, 'thought', `Splitting "${context.task}" into parts.`));
      else if (last.kind === 'thought') {
        for (const [index, part] of context.task.split('; ').entries()) {
          const input = JSON.stringify({ task: part, agent: 'counter', name: `part ${index + 1}` });
          chain.push(await writeStep(context.sink, 'tool_call', input, { tool: DELEGATE_TOOL }));
        }
      } else if (isDelegateCall(last)) await joinBatch(context, chain);
      else if (last.kind === 'observation') chain.push(await writeStep(context.sink, 'final_answer', joinedAnswer(lastObservations(chain))));
      else return;
    }
  });
  return Object.assign(agent, { subagents: ['counter'] as const });
}

function counter(gates: Gates, calls: CallCounts): Agent {
  return new TestAgent('counter', async (context) => {
    const { task } = context;
    calls.add(task);
    const chain = [...context.chain];
    const nested = task.startsWith('deeper:') ? task.slice('deeper:'.length) : undefined;
    for (;;) {
      const last = chain.at(-1);
      if (last === undefined) chain.push(await writeStep(context.sink, 'thought', `Working on ${task}.`));
      else if (last.kind === 'thought') {
        if (task.includes('wait')) await gates.of(task).pass(context.signal);
        if (nested !== undefined) chain.push(await writeStep(context.sink, 'tool_call', JSON.stringify({ task: nested }), { tool: DELEGATE_TOOL }));
        else if (task.includes('question')) chain.push(await writeStep(context.sink, 'tool_call', JSON.stringify(counterQuestion(task)), { tool: ASK_USER_TOOL }));
        else if (task.includes('tool')) chain.push(await writeStep(context.sink, 'tool_call', '{"a":2,"b":3}', { tool: 'adder' }));
        else chain.push(await writeStep(context.sink, 'final_answer', counterAnswer(task, chain)));
      } else if (isDelegateCall(last)) await joinBatch(context, chain);
      else if (last.kind === 'tool_call') {
        const outcome = await observeTool(context, last.tool ?? '', JSON.parse(last.content));
        chain.push({ ...last, kind: 'observation', content: outcome.ok ? outcome.result.text : outcome.error });
      } else if (last.kind === 'observation') chain.push(await writeStep(context.sink, 'final_answer', counterAnswer(task, chain)));
      else return;
    }
  });
}

/** The delegating agents of the contract, sharing the target's gates. */
export function delegatingAgents(gates: Gates, calls: CallCounts): Agent[] {
  return [delegator(), counter(gates, calls)];
}
