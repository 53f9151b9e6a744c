import type { SessionState, Step } from '@interthought/protocol';

/** What finding a call needs of a session: its steps and the chain through them. */
export type ChainView = Pick<SessionState, 'chain' | 'steps'>;

/**
 * The `tool_call` step a run is executing `tool` for. A tool runs right after its call, so the
 * call is among the chain's trailing calls and observations: the earliest one of `tool` that no
 * observation answers yet (an observation answers the earliest waiting call of its tool, as the
 * openai agent pairs them). Undefined when the chain ends otherwise.
 */
export function pendingToolCall(view: ChainView, tool: string): string | undefined {
  const tail: Step[] = [];
  for (let at = view.chain.length - 1; at >= 0; at--) {
    const step = view.steps.get(view.chain[at] ?? '');
    if (step === undefined || (step.kind !== 'tool_call' && step.kind !== 'observation')) break;
    tail.push(step);
  }
  const waiting: Step[] = [];
  for (const step of tail.reverse()) {
    if (step.kind === 'tool_call') {
      waiting.push(step);
      continue;
    }
    const answered = waiting.findIndex((call) => call.tool === step.tool);
    waiting.splice(answered >= 0 ? answered : 0, 1);
  }
  return (waiting.find((call) => call.tool === tool) ?? waiting[0])?.stepId;
}
