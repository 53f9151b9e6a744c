import { isAwaitingInput, parseAskUserInput, type SessionState, type Step } from '@interthought/protocol';
import type { Interrupt } from '@ag-ui/core';
import { stepsOfScope } from './chain-messages.js';

/** What an approval interrupt expects back in `resume[].payload` (PROTOCOL.md §23). */
export const APPROVAL_RESPONSE_SCHEMA = {
  type: 'object',
  properties: {
    approved: { type: 'boolean', description: 'Run the call (true) or refuse it (false).' },
    editedArgs: { type: 'object', description: 'With approved: run the call with these arguments instead.' },
    reason: { type: 'string', description: 'With approved false: why, for the agent.' },
  },
  required: ['approved'],
} as const;

/** What a question's interrupt expects back in `resume[].payload`: the answer (PROTOCOL.md §25.6). */
export const ANSWER_RESPONSE_SCHEMA = {
  type: 'object',
  properties: { text: { type: 'string' } },
  required: ['text'],
} as const;

/** The attribution of a scoped call's interrupt: its sub-agent's invocation (PROTOCOL.md §24.9). */
function attributed(scope: string | undefined): { subagentRunId?: string } {
  return scope === undefined ? {} : { subagentRunId: scope };
}

function approvalInterrupt(step: Step, scope: string | undefined): Interrupt {
  return {
    id: step.stepId,
    reason: 'tool_call',
    message: `Run ${step.tool ?? 'the tool'} with ${step.content}?`,
    toolCallId: step.stepId,
    responseSchema: { ...APPROVAL_RESPONSE_SCHEMA },
    ...attributed(scope),
  };
}

function questionInterrupt(step: Step, scope: string | undefined): Interrupt {
  // A question that waits was asked, so its input is a valid ask_user input (PROTOCOL.md §25.1).
  const asked = parseAskUserInput(step.content);
  return {
    id: step.stepId,
    reason: 'input_required',
    message: asked?.question ?? step.content,
    toolCallId: step.stepId,
    responseSchema: { ...ANSWER_RESPONSE_SCHEMA },
    metadata: { interthought: asked?.choices === undefined ? {} : { choices: asked.choices } },
    ...attributed(scope),
  };
}

/**
 * An interrupt for each call that waits for the user, on the session's chain or a sub-agent's, in
 * chain order: a call waiting for approval (PROTOCOL.md §23) and an `ask_user` question waiting for
 * its answer (§25.6). Its id is the call's (the step's) id, and a scoped call's names its sub-agent.
 */
export function pendingInterrupts(state: SessionState): Interrupt[] {
  const scopes = [undefined, ...state.subagents.keys()];
  return scopes.flatMap((scope) =>
    stepsOfScope(state, scope).flatMap((step): Interrupt[] => {
      if (step.kind !== 'tool_call' || step.status === 'invalidated') return [];
      if (step.approval?.state === 'pending') return [approvalInterrupt(step, scope)];
      if (isAwaitingInput(state, step.stepId)) return [questionInterrupt(step, scope)];
      return [];
    }),
  );
}
