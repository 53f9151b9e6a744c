import { DELEGATE_TOOL, DelegateInputSchema, type DelegateInput } from '@interthought/protocol';
import { checkToolInput, type AgentTool, type AgentToolbox, type ToolCallContext, type ToolResult } from '@interthought/agent';
import type { CatalogTool, ToolCatalog } from '../ports/tool-catalog.js';
import { ToolError } from '../../tools/tool.js';

const DESCRIPTION =
  'Hand an independent part of the task to a sub-agent, which works on it with a chain of its own and answers. ' +
  'Several delegate calls in a row run at the same time; each observation is that sub-agent\'s answer.';

/**
 * `delegate` as the catalogue knows it, outside any run: its input schema (which checks a corrected
 * delegate call) and its effect (it only reads, so by default it does not wait for approval).
 * Running it needs the run it is called from: each run gets its own, bound (`boundDelegate`).
 */
const DELEGATE_DEFINITION: CatalogTool = {
  name: DELEGATE_TOOL,
  description: DESCRIPTION,
  effect: 'read',
  inputSchema: DelegateInputSchema,
  execute: () => Promise.reject(new ToolError('A delegate call runs only within an agent run, which the server binds it to.')),
};

/** The server's tools with `delegate` among them: what corrections check a delegate call's input with, and approvals read. */
export function withDelegate(catalog: ToolCatalog): ToolCatalog {
  return {
    get: (name) => (name === DELEGATE_TOOL ? DELEGATE_DEFINITION : catalog.get(name)),
    list: () => catalog.list(),
    checkInput: (name, jsonText) => (name === DELEGATE_TOOL ? checkToolInput(DELEGATE_DEFINITION, name, jsonText) : catalog.checkInput(name, jsonText)),
  };
}

/** What a run's `delegate` does with a call: run (or resume, or look up) the call's sub-agent and give its outcome. */
export type Delegate = (input: DelegateInput, signal: AbortSignal, call: ToolCallContext) => Promise<ToolResult>;

/** A `delegate` tool bound to one run: `execute` requires the call's step, the sub-agent's scope. */
export function boundDelegate(delegate: Delegate): AgentTool {
  return {
    name: DELEGATE_TOOL,
    description: DESCRIPTION,
    inputSchema: DelegateInputSchema,
    async execute(input: unknown, signal: AbortSignal, call?: ToolCallContext): Promise<ToolResult> {
      if (call === undefined || typeof call.stepId !== 'string') {
        throw new ToolError('A delegate call needs its tool_call step (execute(input, signal, { stepId })): that step is the sub-agent\'s scope.');
      }
      const parsed = DelegateInputSchema.safeParse(input);
      if (!parsed.success) throw new ToolError(`A delegate call takes { task, agent?, name? }: ${parsed.error.issues[0]?.message ?? 'bad input'}.`);
      return delegate(parsed.data, signal, call);
    },
  };
}

/**
 * The toolbox a run's agent gets: the server's tools, and its own `delegate`. `delegate` is found
 * by every agent (an agent delegates to itself by default) but listed, i.e. offered to a model,
 * only to agents that declare sub-agents (`Agent.subagents`), so other agents' models see the
 * tools they always did.
 */
export function runToolbox(catalog: ToolCatalog, delegate: AgentTool, offered: boolean): AgentToolbox {
  return {
    get: (name) => (name === DELEGATE_TOOL ? delegate : catalog.get(name)),
    list: () => (offered ? [...catalog.list().filter((tool) => tool.name !== DELEGATE_TOOL), delegate] : catalog.list()),
    checkInput: (name, jsonText) => catalog.checkInput(name, jsonText),
  };
}
