import { DELEGATE_TOOL } from '@interthought/protocol';
import type { AgentRunContext } from '@interthought/agent';
import { observationOf, runTool, writeObservation, type ToolOutcome } from '../tool-steps.js';
import { joinedAnswer, partName, splitThought } from './delegation-narration.js';
import type { DelegateCall, DelegationState } from './delegation-state.js';
import { emit } from './emit.js';

/** Write the delegate calls for the parts that have none yet: consecutive, so they are one batch (PROTOCOL.md §24.1). */
async function writeCalls(context: AgentRunContext, state: DelegationState): Promise<void> {
  for (let index = state.calls.length; index < state.parts.length; index++) {
    const task = state.parts[index] as string;
    const name = partName(state.lang, index);
    const input = { task, name };
    const stepId = await emit(context, 'tool_call', JSON.stringify(input), { tool: DELEGATE_TOOL });
    state.calls.push({ stepId, task, name, input });
  }
}

/** Run one delegate call: its sub-agent's scope is the call's step. */
function runCall(context: AgentRunContext, call: DelegateCall): Promise<ToolOutcome> {
  if (call.error !== undefined) return Promise.resolve({ ok: false, error: call.error });
  return runTool(context, DELEGATE_TOOL, call.input, { stepId: call.stepId });
}

/**
 * Continue a delegated turn: the split thought, one batch of delegate calls, then — once every
 * sub-agent has finished — their observations in call order and the joined answer. Regenerating,
 * it runs the calls of the trailing batch that have no observation yet (the server answers a
 * finished sibling's call with its stored outcome, without running it again) and uses the
 * observations already on the chain as they are.
 */
export async function continueDelegation(context: AgentRunContext, state: DelegationState): Promise<void> {
  if (state.answered) return;
  if (!state.thoughtWritten) await emit(context, 'thought', splitThought(state.lang, state.parts));
  // Once an observation joined the batch, the batch is closed: no call may follow it.
  if (state.observations.length === 0) await writeCalls(context, state);
  const pending = state.calls.slice(state.observations.length);
  // The parent writes nothing while its batch runs: every sub-agent first, then the observations.
  const outcomes = await Promise.all(pending.map((call) => runCall(context, call)));
  const answers = state.observations.map((step) => step.content);
  for (const outcome of outcomes) {
    context.signal.throwIfAborted();
    await writeObservation(context, DELEGATE_TOOL, outcome);
    answers.push(observationOf(outcome).text);
  }
  const parts = state.calls.map((call, index) => ({ name: call.name, task: call.task, answer: answers[index] ?? '' }));
  await emit(context, 'final_answer', joinedAnswer(state.lang, parts));
}
