import { randomUUID } from 'node:crypto';
import type { Message, ResumeEntry, RunAgentInput, Tool, ToolCall } from '@ag-ui/core';
import { RunAgentInputSchema } from '@ag-ui/core/schemas';
import { ASK_USER_TOOL, AskUserInputSchema, type Step } from '@interthought/protocol';
import { toolJsonSchema } from '../../tools/tool-json-schema.js';
import { AgUiFailure } from './agent-failure.js';
import type { ThreadMemory } from './thread-memory.js';

/*
 * The `RunAgentInput` of a run, from the session's chain: the task as the first user message,
 * reasoning as `reasoning` messages, the agent's text as assistant messages, tool calls as the
 * assistant's `toolCalls` and their results as `tool` messages, what the user said as user
 * messages, and each correction's note as a `developer` message right after what it corrected
 * (after the results of a corrected call's turn, so nothing comes between calls and results).
 * The tools offered are the bridge's `ask_user` (PROTOCOL.md §25.6): the agent runs its own.
 */

/** The agent's own id for a step, or one derived from the step (a step the agent never saw, or a fresh memory). */
function idOf(memory: ThreadMemory, step: Step): string {
  return memory.agentIds.get(step.stepId) ?? (step.correctionOf === undefined ? undefined : memory.agentIds.get(step.correctionOf)) ?? step.stepId;
}

function isBridgeQuestion(memory: ThreadMemory, step: Step): boolean {
  return memory.questions.has(step.stepId) || (step.correctionOf !== undefined && memory.questions.has(step.correctionOf));
}

/**
 * The tool the bridge offers every AG-UI agent (PROTOCOL.md §25.6): its call is a question the
 * session waits on, and the answer comes back as the call's tool message in the next run.
 */
export const ASK_USER_AG_UI_TOOL: Tool = {
  name: ASK_USER_TOOL,
  description:
    'Ask the user a question and wait for the answer, which comes back as this tool\'s result in the next run. ' +
    'Use it when only the user can settle something; give `choices` for answers they can pick with one click.',
  parameters: toolJsonSchema({ inputSchema: AskUserInputSchema }),
};

/** What the agent is told about a step the user corrected. */
export function correctionNote(step: Step): string {
  const tool = step.tool ?? 'tool';
  const what: Record<Step['kind'], string> = {
    thought: `The user corrected your reasoning; it now reads: "${step.content}".`,
    action: `The user corrected your step; it now reads: "${step.content}".`,
    tool_call: `The user corrected the input of your ${tool} call to ${step.content}.`,
    observation: `The user corrected the result of the ${tool} tool; the corrected result is shown above.`,
    final_answer: 'The user corrected your answer; the corrected answer is shown above.',
    user_message: 'The user edited their message.',
  };
  const note = step.correction?.note?.trim();
  return [what[step.kind], ...(note ? [`Their note: ${note}`] : []), 'Continue from the corrected step.'].join(' ');
}

function isCorrected(step: Step): boolean {
  return step.status === 'corrected' || step.correctionOf !== undefined;
}

/**
 * The conversation the agent gets back: the lessons of earlier corrections as a `system` message
 * when it has some (PROTOCOL.md §26.4; AG-UI's "system" role carries instructions), the task, then
 * the chain with corrections in place. The lessons step is the server's, not the agent's: no message of its own.
 */
export function chainMessages(task: string, chain: readonly Step[], memory: ThreadMemory, threadId: string, lessons?: string): Message[] {
  const messages: Message[] = [
    ...(lessons === undefined ? [] : [{ id: `${threadId}-lessons`, role: 'system' as const, content: lessons }]),
    { id: `${threadId}-task`, role: 'user', content: task },
  ];
  /** Calls whose results have not come yet: a note waits until they have. */
  const waiting: Array<{ id: string; tool: string | undefined }> = [];
  const notes: string[] = [];
  const settleNotes = (): void => {
    if (waiting.length > 0 || notes.length === 0) return;
    messages.push({ id: `${threadId}-note-${messages.length}`, role: 'developer', content: notes.join('\n') });
    notes.length = 0;
  };
  /** A question the bridge asked for an interrupt: the resume entry answers it, so neither it nor its answer is a message. */
  let bridgeQuestion = false;
  for (const step of chain) {
    if (step.lessons !== undefined) continue;
    const id = idOf(memory, step);
    const last = messages[messages.length - 1];
    if (step.kind === 'tool_call' && step.tool === ASK_USER_TOOL && isBridgeQuestion(memory, step)) {
      bridgeQuestion = true;
      continue;
    }
    const answersBridgeQuestion = bridgeQuestion && step.kind === 'observation' && step.tool === ASK_USER_TOOL;
    bridgeQuestion = false;
    if (answersBridgeQuestion) continue;
    switch (step.kind) {
      case 'user_message':
        messages.push({ id, role: 'user', content: step.content });
        break;
      case 'thought':
        if (memory.textThoughts.has(step.stepId) || (step.correctionOf !== undefined && memory.textThoughts.has(step.correctionOf))) messages.push({ id, role: 'assistant', content: step.content });
        else messages.push({ id, role: 'reasoning', content: step.content });
        break;
      case 'final_answer':
        messages.push({ id, role: 'assistant', content: step.content });
        break;
      case 'action':
        // A framework's step name is progress, not conversation: the agent gets only a correction of it.
        break;
      case 'tool_call': {
        const call: ToolCall = { id, type: 'function', function: { name: step.tool ?? '', arguments: step.content } };
        if (last?.role === 'assistant' && waiting.length === (last.toolCalls?.length ?? 0)) last.toolCalls = [...(last.toolCalls ?? []), call];
        else messages.push({ id: `${id}-message`, role: 'assistant', toolCalls: [call] });
        waiting.push({ id, tool: step.tool });
        break;
      }
      case 'observation': {
        const at = waiting.findIndex((call) => call.tool === step.tool);
        const [call] = waiting.splice(at >= 0 ? at : 0, 1);
        if (call === undefined) messages.push({ id, role: 'user', content: `Result of the ${step.tool ?? 'tool'} tool: ${step.content}` });
        else messages.push({ id, role: 'tool', toolCallId: call.id, content: step.content });
        break;
      }
    }
    if (isCorrected(step) && step.kind !== 'user_message') notes.push(correctionNote(step));
    if (step.kind !== 'tool_call') settleNotes();
  }
  // Calls the chain leaves unanswered (one waiting for its decision) are the agent's to finish.
  waiting.length = 0;
  settleNotes();
  return messages;
}

/** The request body of one run. Refused before sending if it does not match the AG-UI schema. */
export function runInput(threadId: string, messages: Message[], memory: ThreadMemory, resume: ResumeEntry[]): RunAgentInput {
  const input: RunAgentInput = {
    threadId,
    runId: randomUUID(),
    messages,
    tools: [ASK_USER_AG_UI_TOOL],
    context: [],
    state: memory.state ?? {},
    forwardedProps: {},
    ...(resume.length === 0 ? {} : { resume }),
  };
  const checked = RunAgentInputSchema.safeParse(input);
  if (!checked.success) throw new AgUiFailure(`The run input for the AG-UI agent is invalid: ${checked.error.issues[0]?.message ?? 'schema mismatch'}.`);
  return input;
}
