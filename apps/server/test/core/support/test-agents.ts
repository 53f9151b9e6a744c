import type { Step, StepKind } from '@interthought/protocol';
import type { Agent, AgentAvailability, AgentRunContext } from '@interthought/agent';
import { streamStep } from '../../../src/agents/stream-text.js';
import { observeTool } from '../../../src/agents/tool-steps.js';

/** A test agent whose run is a function the test provides; it keeps every run's context. */
export class TestAgent implements Agent {
  readonly runs: AgentRunContext[] = [];
  availabilityNow: AgentAvailability = { available: true };

  constructor(
    readonly name: string,
    readonly behaviour: (context: AgentRunContext, runIndex: number) => Promise<void>,
    readonly description = `test agent ${name}`,
  ) {}

  availability(): AgentAvailability {
    return this.availabilityNow;
  }

  run(context: AgentRunContext): Promise<void> {
    this.runs.push(context);
    return this.behaviour(context, this.runs.length - 1);
  }
}

export interface ScriptStep {
  kind: StepKind;
  /** The text, or a function of the chain so far: regenerated steps then depend on corrections for real. */
  text: string | ((chain: readonly Step[]) => string);
  tool?: string;
  result?: unknown;
}

/**
 * Streams the script's steps after the chain it is given: a fresh session gets the whole
 * script, a run after a correction at index i continues with steps i+1 … of the script.
 */
export function scriptBehaviour(script: readonly ScriptStep[]) {
  return async (context: AgentRunContext): Promise<void> => {
    const chain = [...context.chain];
    for (let index = context.chain.length; index < script.length; index++) {
      const step = script[index]!;
      const text = typeof step.text === 'string' ? step.text : step.text(chain);
      const extra: { tool?: string; result?: unknown } = {};
      if (step.tool !== undefined) extra.tool = step.tool;
      if (step.result !== undefined) extra.result = step.result;
      await streamStep(context.sink, step.kind, text, extra);
      chain.push({ stepId: `local-${index}`, parentId: null, index, kind: step.kind, status: 'completed', content: text, revision: 0 });
    }
  };
}

/** A thought, an action, a tool call, its observation and a final answer: one step of each kind. */
export const FIVE_KINDS: readonly ScriptStep[] = [
  { kind: 'thought', text: 'I should add two and three.' },
  { kind: 'action', text: (chain) => `Plan after "${chain[0]?.content ?? ''}": call the adder.` },
  { kind: 'tool_call', tool: 'adder', text: '{"a":2,"b":3}' },
  { kind: 'observation', tool: 'adder', text: (chain) => `Observed for ${chain[2]?.content ?? ''}`, result: { note: 'scripted' } },
  { kind: 'final_answer', text: (chain) => `Answer built on: ${chain.map((step) => step.content).join(' | ')}` },
];

/**
 * A chain-driven tool user, like a real agent: it looks at the last step of its chain and
 * produces the next one, so a corrected tool call really re-runs the tool with the new input.
 */
export async function adderBehaviour(context: AgentRunContext): Promise<void> {
  let last: { kind: StepKind; content: string; result?: unknown } | undefined = context.chain[context.chain.length - 1];
  while (last?.kind !== 'final_answer') {
    switch (last?.kind) {
      case undefined:
        await streamStep(context.sink, 'thought', 'I will add the numbers.');
        last = { kind: 'thought', content: 'I will add the numbers.' };
        break;
      case 'thought':
      case 'action':
        await streamStep(context.sink, 'tool_call', '{"a":2,"b":3}', { tool: 'adder' });
        last = { kind: 'tool_call', content: '{"a":2,"b":3}' };
        break;
      case 'tool_call': {
        const outcome = await observeTool(context, 'adder', JSON.parse(last.content));
        last = { kind: 'observation', content: '', result: outcome.ok ? outcome.result.output : undefined };
        break;
      }
      case 'observation': {
        const sum = (last.result as { sum?: number } | undefined)?.sum;
        const answer = `The sum is ${String(sum)}.`;
        await streamStep(context.sink, 'final_answer', answer);
        last = { kind: 'final_answer', content: answer };
        break;
      }
    }
  }
}

/** A promise the test resolves, to hold an agent at a known point. */
export class Checkpoint {
  reached = false;
  #release: () => void = () => undefined;
  readonly #released: Promise<void>;

  constructor() {
    this.#released = new Promise((resolve) => {
      this.#release = resolve;
    });
  }

  /** Called by the agent: marks the point reached and waits for `release` (not for the signal). */
  wait(): Promise<void> {
    this.reached = true;
    return this.#released;
  }

  release(): void {
    this.#release();
  }
}

/**
 * Streams "partial text " into a thought, waits at the checkpoint, then tries to go on. Every
 * write that is refused is recorded, so a test can see that an aborted run emits nothing.
 */
export function heldBehaviour(checkpoint: Checkpoint, refusals: unknown[]) {
  return async (context: AgentRunContext, runIndex: number): Promise<void> => {
    if (runIndex > 0) {
      await streamStep(context.sink, 'final_answer', `Regenerated after ${context.chain.length} steps.`);
      return;
    }
    const writer = context.sink.start('thought');
    await writer.write('partial ');
    await writer.write('text ');
    await checkpoint.wait();
    try {
      await writer.write('more');
      writer.end();
      context.sink.start('final_answer');
    } catch (error) {
      refusals.push(error);
      throw error;
    }
  };
}
