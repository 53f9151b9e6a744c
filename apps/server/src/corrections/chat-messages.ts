import type { AssistantMessage, ChatMessage, SessionState, Step } from '@interthought/protocol';

/*
 * The one mapping of steps to chat messages (PROTOCOL.md §26.3, its paragraph on messages): the OpenAI shape that
 * TRL and most trainers read. A step is one message; a tool call is an assistant turn whose
 * `tool_calls` names the call by its step id, and its observation answers that id.
 */

/** An agent's own turn as an assistant message: its text, or the tool call with `content: ""`. */
export function assistantMessageOf(step: Pick<Step, 'stepId' | 'kind' | 'content' | 'tool'>): AssistantMessage {
  if (step.kind !== 'tool_call') return { role: 'assistant', content: step.content };
  return { role: 'assistant', content: '', tool_calls: [{ id: step.stepId, type: 'function', function: { name: step.tool ?? '', arguments: step.content } }] };
}

/** Any step as the one chat message it is. */
export function chatMessageOf(step: Step): ChatMessage {
  if (step.kind === 'user_message') return { role: 'user', content: step.content };
  if (step.kind === 'observation') return { role: 'tool', tool_call_id: step.parentId ?? '', content: step.content };
  return assistantMessageOf(step);
}

/**
 * The context of `step` as messages: the task (its scope's, for a sub-agent's step) as the user's
 * message, then every step of its path before it, within its scope, oldest first.
 */
export function contextMessages(state: SessionState, step: Step): ChatMessage[] {
  const task = step.scope === undefined ? state.session.task : (state.subagents.get(step.scope)?.task ?? state.session.task);
  const path: Step[] = [];
  let parent = step.parentId === null ? undefined : state.steps.get(step.parentId);
  while (parent !== undefined && parent.scope === step.scope) {
    path.push(parent);
    parent = parent.parentId === null ? undefined : state.steps.get(parent.parentId);
  }
  return [{ role: 'user', content: task }, ...path.reverse().map(chatMessageOf)];
}
