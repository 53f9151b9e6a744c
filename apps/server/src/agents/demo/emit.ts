import type { StepKind } from '@interthought/protocol';
import type { AgentRunContext } from '@interthought/agent';
import { streamStep } from '../stream-text.js';

/** Stream one step, unless the run was aborted (then stop before starting it). Resolves to the step's id. */
export async function emit(context: AgentRunContext, kind: StepKind, text: string, extra?: { tool?: string; result?: unknown }): Promise<string> {
  context.signal.throwIfAborted();
  return streamStep(context.sink, kind, text, extra);
}
