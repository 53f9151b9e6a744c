import type { Step } from '@interthought/protocol';
import type { AgentRunContext, StepWriter } from '@interthought/agent';
import { ToolError } from '../../tools/tool.js';
import { traceToolCall } from '../../tracing/tool-call-span.js';

/** What a server-side tool run gave: the tool's output or its own error, and the observation written. */
export interface ServerToolOutcome {
  ok: boolean;
  output?: unknown;
  error?: string;
  text: string;
  observation: Step;
}

/** The session's current revision as the chain shows it (steps carry the revision they were made in). */
function revisionOf(chain: readonly Step[]): number {
  return chain.reduce((revision, step) => Math.max(revision, step.revision), 0);
}

/**
 * Run the server's tool `name` on checked input and write its `observation` step, as in-process
 * agents do (`observeTool`); also returns the step as the chain now holds it, so a `run.start`
 * sent afterwards can carry it. A tool's own error is the observation; an abort propagates.
 */
export async function runServerTool(context: AgentRunContext, name: string, input: unknown, chain: readonly Step[]): Promise<ServerToolOutcome> {
  const tool = context.tools.get(name);
  let outcome: { ok: true; output: unknown; text: string } | { ok: false; error: string; text: string };
  if (tool === undefined) {
    outcome = { ok: false, error: `Unknown tool "${name}".`, text: `Error: Unknown tool "${name}".` };
  } else {
    context.signal.throwIfAborted();
    try {
      const result = await traceToolCall(tool, context.signal, () => tool.execute(input, context.signal));
      outcome = { ok: true, output: result.output, text: result.text };
    } catch (error) {
      if (context.signal.aborted || !(error instanceof ToolError)) throw error;
      outcome = { ok: false, error: error.message, text: `Error: ${error.message}` };
    }
  }
  const result = outcome.ok ? outcome.output : { error: outcome.error };
  return { ...outcome, observation: await writeObservation(context, chain, name, outcome.text, result) };
}

/** Write an `observation` step of `tool` and return it as it now ends the chain. */
export async function writeObservation(context: AgentRunContext, chain: readonly Step[], tool: string, text: string, result: unknown): Promise<Step> {
  const writer: StepWriter = context.sink.start('observation', { tool });
  await writer.write(text);
  writer.end({ result });
  const head = chain[chain.length - 1];
  return {
    stepId: writer.stepId,
    parentId: head?.stepId ?? null,
    index: chain.length,
    kind: 'observation',
    status: 'completed',
    content: text,
    revision: revisionOf(chain),
    tool,
    result,
  };
}
