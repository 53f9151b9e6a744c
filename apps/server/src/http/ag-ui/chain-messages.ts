import { chainSteps, type SessionState, type Step } from '@interthought/protocol';
import type { Message } from '@ag-ui/core';

/**
 * A session's current chain as AG-UI messages, with the ids its live stream gives them: a step's
 * id is its message's id (and a `tool_call` step's id its tool call's id). The task is the first
 * user message; an `action` step is a run step, not a message, so it has none.
 */
export function chainMessages(state: SessionState): Message[] {
  const messages: Message[] = [{ id: `${state.session.sessionId}.task`, role: 'user', content: state.session.task }];
  let previous: Step | undefined;
  for (const step of chainSteps(state)) {
    const message = messageOf(step, previous);
    if (message !== undefined) messages.push(message);
    previous = step;
  }
  return messages;
}

function messageOf(step: Step, previous: Step | undefined): Message | undefined {
  switch (step.kind) {
    case 'thought':
      return { id: step.stepId, role: 'reasoning', content: step.content };
    case 'tool_call':
      return {
        id: step.stepId,
        role: 'assistant',
        toolCalls: [{ id: step.stepId, type: 'function', function: { name: step.tool ?? 'tool', arguments: step.content } }],
      };
    case 'observation':
      return { id: step.stepId, role: 'tool', toolCallId: toolCallIdOf(step, previous), content: observationText(step) };
    case 'final_answer':
      return { id: step.stepId, role: 'assistant', content: step.content };
    case 'user_message':
      return { id: step.stepId, role: 'user', content: step.content };
    case 'action':
      return undefined;
  }
}

/** The call an observation answers: the `tool_call` step it follows (else its own id, which no call has). */
export function toolCallIdOf(step: Step, previous: Pick<Step, 'stepId' | 'kind'> | undefined): string {
  return previous?.kind === 'tool_call' ? previous.stepId : step.parentId ?? step.stepId;
}

/** What a tool message says: the observation's text, else its structured result as JSON. */
export function observationText(step: Pick<Step, 'content' | 'result'>): string {
  if (step.content !== '' || step.result === undefined) return step.content;
  return JSON.stringify(step.result);
}

/**
 * Whether the client's messages still tell the chain as it is: every message the agent made (not
 * the user's, whose ids are the client's own) has a step of the chain behind it, and the other way
 * round. A correction in the web app or over `/ws` replaces steps, so their ids differ.
 */
export function agreesWithChain(state: SessionState, clientMessages: readonly Message[]): boolean {
  const ours = new Set(chainMessages(state).filter((message) => message.role !== 'user').map((message) => message.id));
  const theirs = new Set(clientMessages.filter((message) => message.role !== 'user' && message.role !== 'system' && message.role !== 'developer').map((m) => m.id));
  if (ours.size !== theirs.size) return false;
  for (const id of ours) if (!theirs.has(id)) return false;
  return true;
}
