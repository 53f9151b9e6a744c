import { DELEGATE_TOOL, DelegateInputSchema, type DelegateInput, type Step } from '@interthought/protocol';
import { createDemoAgent } from '../../../src/agents/demo/index.js';
import { createDefaultTools } from '../../../src/tools/index.js';
import type { ToolRegistry } from '../../../src/tools/tool-registry.js';
import { RecordingSink } from '../../support/recording-sink.js';
import { runDemo } from './demo-harness.js';

/** One execution of the delegate tool: the call's step (its scope), its input, and what the sub-agent streamed. */
export interface DelegateExecution {
  stepId: string | undefined;
  input: DelegateInput;
  /** Undefined when the outcome was stored from before: no sub-agent ran. */
  sink?: RecordingSink;
}

/**
 * The built-in tools plus a `delegate` tool that runs the demo agent on the delegated task in a
 * sink of its own, as a server's sub-agent would, and records every execution. Outcomes given in
 * `stored` (by the call's step id) are returned at once without running, as the server does for a
 * finished sibling. `gate` holds every sub-agent until it resolves, so a test sees them all in flight.
 */
export function delegatingTools(options: { stored?: ReadonlyMap<string, string>; gate?: Promise<void> } = {}): {
  tools: ToolRegistry;
  executions: DelegateExecution[];
} {
  const executions: DelegateExecution[] = [];
  const tools = createDefaultTools().register({
    name: DELEGATE_TOOL,
    description: 'Hand a task to a sub-agent.',
    effect: 'read',
    inputSchema: DelegateInputSchema,
    async execute(input: DelegateInput, signal, call) {
      const stored = call ? options.stored?.get(call.stepId) : undefined;
      if (stored !== undefined) {
        executions.push({ stepId: call?.stepId, input });
        return { text: stored, output: { subagent: call?.stepId, status: 'completed', answer: stored } };
      }
      const sink = new RecordingSink({ signal });
      executions.push({ stepId: call?.stepId, input, sink });
      await options.gate;
      signal.throwIfAborted();
      await createDemoAgent().run({ task: input.task, chain: [], options: {}, tools, sink, signal });
      const answer = sink.last('final_answer')?.content ?? '';
      return { text: answer, output: { subagent: call?.stepId, status: 'completed', answer } };
    },
  });
  return { tools, executions };
}

/** Run the demo agent on a task and chain with the delegating toolbox. */
export async function runDelegating(
  task: string,
  chain: readonly Step[] = [],
  options: Parameters<typeof delegatingTools>[0] & { signal?: AbortSignal } = {},
): Promise<{ sink: RecordingSink; executions: DelegateExecution[] }> {
  const { tools, executions } = delegatingTools(options);
  const signal = options.signal ?? new AbortController().signal;
  const sink = new RecordingSink({ signal });
  await createDemoAgent().run({ task, chain, options: {}, tools, sink, signal });
  return { sink, executions };
}

export { runDemo };
