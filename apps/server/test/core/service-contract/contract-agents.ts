import type { Step } from '@interthought/protocol';
import { AgentRegistry, type Agent, type AgentRunContext } from '@interthought/agent';
import { createDemoAgent } from '../../../src/agents/demo/index.js';
import { streamStep } from '../../../src/agents/stream-text.js';
import { createDefaultTools } from '../../../src/tools/index.js';
import type { ToolRegistry } from '../../../src/tools/tool-registry.js';
import { FIVE_KINDS, TestAgent, scriptBehaviour } from '../support/test-agents.js';
import { WriteFileSpy, adderTool } from '../support/test-tools.js';
import { callerAgent } from './caller-agent.js';
import { CallCounts, delegatingAgents } from './delegating-agents.js';
import { askerAgent } from './asking-agents.js';

/** A gate an agent waits at until the test opens it, or its run is aborted. Once open, it stays open. */
export class Gate {
  #open = false;
  readonly #waiting = new Set<() => void>();

  get isOpen(): boolean {
    return this.#open;
  }

  open(): void {
    this.#open = true;
    for (const resolve of this.#waiting) resolve();
    this.#waiting.clear();
  }

  pass(signal: AbortSignal): Promise<void> {
    if (this.#open) return Promise.resolve();
    return new Promise((resolve, reject) => {
      if (signal.aborted) return reject(signal.reason);
      const onAbort = (): void => {
        this.#waiting.delete(done);
        reject(signal.reason);
      };
      const done = (): void => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      };
      this.#waiting.add(done);
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }
}

/** One gate per task text, made on first use: a test holds its own sessions and nobody else's. */
export class Gates {
  readonly #gates = new Map<string, Gate>();

  of(task: string): Gate {
    let gate = this.#gates.get(task);
    if (gate === undefined) {
      gate = new Gate();
      this.#gates.set(task, gate);
    }
    return gate;
  }
}

/** The `gated` agent's first step of a turn. */
export const GATED_THOUGHT = 'Working on it.';

/** What the `gated` agent answers with: every step of the chain it was given, joined. */
export function gatedAnswer(chain: readonly Pick<Step, 'content'>[]): string {
  return `Done after: ${chain.map((step) => step.content).join(' | ')}`;
}

/**
 * Starts a turn with a thought (unless the chain already ends with one, as after a correction of
 * it), waits at its task's gate, then answers. Held at the gate, a session is `running` at a step
 * boundary, for as long as the test wants, without streaming anything.
 */
function gatedAgent(gates: Gates): Agent {
  return new TestAgent('gated', async (context: AgentRunContext) => {
    const chain = [...context.chain];
    if (chain.at(-1)?.kind !== 'thought') {
      await streamStep(context.sink, 'thought', GATED_THOUGHT);
      chain.push({ stepId: 'local', parentId: null, index: chain.length, kind: 'thought', status: 'completed', content: GATED_THOUGHT, revision: 0 });
    }
    await gates.of(context.task).pass(context.signal);
    await streamStep(context.sink, 'final_answer', gatedAnswer(chain));
  });
}

/** The agents and tools of every node of a target (the same instances on each: a session may run on any). */
export interface ContractAgents {
  agents: Agent[];
  tools: () => ToolRegistry;
  gates: Gates;
  /** How often the `counter` sub-agent ran each task. */
  calls: CallCounts;
  /** The `write_file` spy every node's tools share: the calls that really ran. */
  files: WriteFileSpy;
}

/**
 * `script` (the default: one step of each kind, then done), `gated` (held at a gate), `demo`
 * (the demo agent and the built-in tools: its calculator call waits with `options.approve`), and
 * `delegator` with its `counter` sub-agents (`delegating-agents.ts`), `asker`, which asks the
 * user (`asking-agents.ts`), and `caller`, which makes the tool calls its task lists (`caller-agent.ts`).
 */
export function contractAgents(): ContractAgents {
  const gates = new Gates();
  const calls = new CallCounts();
  const files = new WriteFileSpy();
  return {
    agents: [new TestAgent('script', scriptBehaviour(FIVE_KINDS)), gatedAgent(gates), createDemoAgent(), ...delegatingAgents(gates, calls), askerAgent(), callerAgent(gates)],
    tools: () => createDefaultTools().register(adderTool).register(files),
    gates,
    calls,
    files,
  };
}

/** A registry of the agents, `script` the default. */
export function registryOf(agents: readonly Agent[]): AgentRegistry {
  const registry = new AgentRegistry('script');
  for (const agent of agents) registry.register(agent);
  return registry;
}
