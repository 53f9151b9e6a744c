import { ASK_USER_TOOL, type Step } from '@interthought/protocol';
import { askedQuestion } from '$lib/chain/question-text.js';
import { displayText } from '$lib/chain/step-text.js';

/**
 * What find searches in a step: what its card shows as text — the body as displayed (tool input
 * pretty-printed, an `ask_user` call as its question), the tool's name, a correction's note and a
 * rejection's reason. Labels the card adds (kind, "Step 3") are not the step's text.
 */
export function searchTextOf(step: Step): string {
  const body =
    step.kind === 'tool_call' && step.tool === ASK_USER_TOOL && step.status !== 'streaming'
      ? (askedQuestion(step.content)?.question ?? displayText(step.kind, step.content))
      : displayText(step.kind, step.content);
  // In the order the card shows them (the tool's name is in its header), so the nth hit here is the nth drawn.
  let text = step.tool ? `${step.tool}\n${body}` : body;
  if (step.correction?.note) text += `\n${step.correction.note}`;
  if (step.approval?.reason) text += `\n${step.approval.reason}`;
  return text;
}

/**
 * The fields `searchTextOf` reads, by identity: the reducer writes a new string or object when one
 * changes, so comparing these tells whether a step's text changed without building it again.
 */
export interface TextVersion {
  content: string;
  status: Step['status'];
  tool: string | undefined;
  correction: Step['correction'];
  approval: Step['approval'];
}

export function textVersionOf(step: Step): TextVersion {
  return { content: step.content, status: step.status, tool: step.tool, correction: step.correction, approval: step.approval };
}

export function sameTextVersion(a: TextVersion, step: Step): boolean {
  return a.content === step.content && a.status === step.status && a.tool === step.tool && a.correction === step.correction && a.approval === step.approval;
}
