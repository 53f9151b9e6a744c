import { chainOfScope, DELEGATE_TOOL, type SessionState, type Step } from '@interthought/protocol';
import type { Message } from '@ag-ui/core';

/**
 * A session's current chain as AG-UI messages, with the ids its live stream gives them: a step's
 * id is its message's id (and a `tool_call` step's id its tool call's id). The task is the first
 * user message; an `action` step is a run step, not a message, so it has none. A delegate call's
 * sub-agent follows its call: the scope's messages, each with `subagentRunId` = the scope
 * (PROTOCOL.md §24.9), the sub-agents of those after their own calls.
 */
export function chainMessages(state: SessionState): Message[] {
  const messages: Message[] = [{ id: `${state.session.sessionId}.task`, role: 'user', content: state.session.task }];
  pushScope(state, undefined, messages);
  return messages;
}

function pushScope(state: SessionState, scope: string | undefined, messages: Message[]): void {
  const chain = stepsOfScope(state, scope);
  chain.forEach((step, index) => {
    const message = messageOf(step, chain, index);
    if (message === undefined) return;
    messages.push(scope === undefined ? message : ({ ...message, subagentRunId: scope } as Message));
    if (step.kind === 'tool_call' && step.tool === DELEGATE_TOOL && state.subagents.has(step.stepId)) pushScope(state, step.stepId, messages);
  });
}

/** The steps of a scope's chain (the root's when `scope` is undefined), root first. */
export function stepsOfScope(state: SessionState, scope: string | undefined): Step[] {
  const ids = chainOfScope(state, scope) ?? [];
  return ids.map((id) => state.steps.get(id)).filter((step): step is Step => step !== undefined);
}

function messageOf(step: Step, chain: readonly Step[], index: number): Message | undefined {
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
      return { id: step.stepId, role: 'tool', toolCallId: answeredCallOf(chain, index), content: observationText(step) };
    case 'final_answer':
      return { id: step.stepId, role: 'assistant', content: step.content };
    case 'user_message':
      return { id: step.stepId, role: 'user', content: step.content };
    case 'action':
      return undefined;
  }
}

/**
 * The call the observation at `index` of `chain` answers. Calls written one after another are a
 * batch whose observations follow it in call order (PROTOCOL.md §24.1), so the k-th observation
 * after a run of calls answers its k-th call; a lone call's observation answers it. An observation
 * that follows no call names its parent (else itself, which no call is).
 */
export function answeredCallOf(chain: readonly Pick<Step, 'stepId' | 'kind' | 'parentId'>[], index: number): string {
  let first = index;
  while (first > 0 && chain[first - 1]!.kind === 'observation') first -= 1;
  let calls = first;
  while (calls > 0 && chain[calls - 1]!.kind === 'tool_call') calls -= 1;
  const call = chain[calls + (index - first)];
  if (call !== undefined && call.kind === 'tool_call' && calls + (index - first) < first) return call.stepId;
  const step = chain[index];
  return step?.parentId ?? step?.stepId ?? '';
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
