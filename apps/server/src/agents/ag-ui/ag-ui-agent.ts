import type { ResumeEntry } from '@ag-ui/core';
import type { Agent, AgentRunContext } from '@interthought/agent';
import type { Step } from '@interthought/protocol';
import { AgUiFailure } from './agent-failure.js';
import type { AgUiEndpoint } from './config.js';
import { readEventStream } from './event-stream.js';
import { ChunkExpander, OrderVerifier } from './event-order.js';
import { EventValidator } from './event-validation.js';
import { resumeEntries } from './interrupts.js';
import { chainMessages, runInput } from './run-input.js';
import { StepMapper, type WrittenStep } from './step-mapper.js';
import { SubagentRouter } from './subagent-router.js';
import { ThreadMemories, type ThreadMemory } from './thread-memory.js';

type Env = Record<string, string | undefined>;

export interface AgUiAgentSetup {
  name: string;
  description: string;
  endpoint: AgUiEndpoint;
  env: Env;
  /** It learns from earlier corrections (`"lessons": true`, PROTOCOL.md §26.4): the lessons go as a `system` message. */
  lessons?: { readonly max: number };
}

/** A step this run wrote, as the chain of the next request of the same run shows it. */
function asChainStep(step: WrittenStep, index: number): Step {
  return { stepId: step.stepId, parentId: null, index, kind: step.kind, status: 'completed', content: step.content, revision: 0, ...(step.tool === undefined ? {} : { tool: step.tool }) } as Step;
}

/** The tool of each call on the chain, by the agent's id for it. */
function earlierCalls(chain: readonly Step[], memory: ThreadMemory): Map<string, string> {
  const calls = new Map<string, string>();
  for (const step of chain) {
    if (step.kind !== 'tool_call' || step.tool === undefined) continue;
    calls.set(memory.agentIds.get(step.stepId) ?? (step.correctionOf === undefined ? undefined : memory.agentIds.get(step.correctionOf)) ?? step.stepId, step.tool);
  }
  return calls;
}

/**
 * An agent behind an AG-UI endpoint (LangGraph, CopilotKit, Mastra …). A run POSTs the session's
 * chain as `RunAgentInput` on the session's thread and maps the event stream to steps; a
 * correction aborts the request and the next run sends the corrected chain.
 */
export function agUiAgent(setup: AgUiAgentSetup): Agent {
  const threads = new ThreadMemories();
  return {
    name: setup.name,
    description: setup.description,
    ...(setup.lessons === undefined ? {} : { lessons: setup.lessons }),
    availability: () => ({ available: true }),
    async run(context: AgentRunContext): Promise<void> {
      const threadId = context.sessionId ?? `thread-${crypto.randomUUID()}`;
      const memory = threads.of(threadId);
      let resume: ResumeEntry[] = resumeEntries(memory, context.chain);
      const chain: Step[] = [...context.chain];
      for (;;) {
        const mapper = new StepMapper(context.sink, memory, context.options.approve, earlierCalls(chain, memory));
        const body = runInput(threadId, chainMessages(context.task, chain, memory, threadId, context.lessons), memory, resume);
        const end = await streamRun(setup, context, body, mapper, memory);
        // The core ended the run (a question, an approval wait): the next run comes with the user's answer.
        if (context.signal.aborted) return;
        // Run again when the bridge answered for the user (calls the policy lets through) or for a tool (a bad ask_user call).
        const autoResume = end?.autoResume ?? [];
        if (autoResume.length === 0 && mapper.answeredCalls === 0) return;
        chain.push(...mapper.written.map((step, at) => asChainStep(step, chain.length + at)));
        resume = autoResume;
      }
    },
  };
}

/** One request: its events validated, expanded, verified and mapped (each subagent's into its scope), until the stream ends. */
async function streamRun(setup: AgUiAgentSetup, context: AgentRunContext, body: unknown, root: StepMapper, memory: ThreadMemory) {
  const mapper = new SubagentRouter(root, context.sink, (sink) => new StepMapper(sink, memory, context.options.approve));
  const validator = new EventValidator();
  const expander = new ChunkExpander();
  const order = new OrderVerifier();
  let end: Awaited<ReturnType<StepMapper['handle']>>;
  const onRetry = (detail: string): void => context.sink.notice(detail);
  try {
    for await (const raw of readEventStream({ endpoint: setup.endpoint, env: setup.env, body, signal: context.signal, onRetry })) {
      const event = validator.check(raw);
      if (event === undefined) continue;
      for (const expanded of expander.expand(event)) {
        order.verify(expanded);
        const ended = await mapper.handle(expanded);
        if (ended !== undefined) end = ended;
        if (mapper.waiting) return undefined;
        if (expanded.type === 'RUN_ERROR') throw new AgUiFailure(expanded.message);
      }
    }
    for (const closing of expander.close()) order.verify(closing);
    order.end();
    return end;
  } catch (error) {
    if (context.signal.aborted) throw context.signal.reason;
    if (error instanceof AgUiFailure) {
      // What the agent said before it failed stays on the chain; the failure is the session's.
      await mapper.fail(error.message).catch(() => undefined);
    }
    throw error;
  }
}
