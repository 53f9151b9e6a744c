import { chainSteps, isRefusalResult, type SessionState, type Step, type StepApproval } from '@interthought/protocol';
import { TIMEOUT_DECIDER } from '../commands/approvals.js';

/*
 * A session's transcript as Markdown (PROTOCOL.md §20.5, `format=md`): its current chain for
 * people to read, with the user's turns, every step under its kind, and the corrections,
 * approval decisions and refusals noted where they happened. Agent and user text is kept as it
 * is (it is Markdown already); what the server adds is in English.
 */

const TITLE_MAX = 120;

const HEADINGS: Readonly<Record<string, string>> = {
  thought: 'Thought',
  action: 'Action',
  tool_call: 'Tool call',
  observation: 'Observation',
  final_answer: 'Answer',
};

/** A fenced block whose fence is longer than any run of backticks in the text, so nothing closes it early. */
function fenced(text: string, language = ''): string {
  const longest = Math.max(2, ...Array.from(text.matchAll(/`+/g), (match) => match[0].length));
  const fence = '`'.repeat(longest + 1);
  return `${fence}${language}\n${text}\n${fence}`;
}

function quoted(markdown: string): string {
  return markdown
    .split('\n')
    .map((line) => (line === '' ? '>' : `> ${line}`))
    .join('\n');
}

/** A tool call's input, pretty-printed when it is JSON. */
function toolInput(content: string): string {
  try {
    return fenced(JSON.stringify(JSON.parse(content), null, 2), 'json');
  } catch {
    return fenced(content);
  }
}

function byWhom(by: string | undefined, at: string | undefined): string {
  return `${by === undefined ? '' : ` by ${by}`}${at === undefined ? '' : ` at ${at}`}`;
}

function correctionNote(step: Step): string | undefined {
  const { correction } = step;
  if (correction === undefined) return undefined;
  const note = correction.note === undefined || correction.note === '' ? '' : ` Note: “${correction.note}”`;
  const earlier = step.kind === 'tool_call' ? toolInput(correction.previousContent) : quoted(correction.previousContent || '(empty)');
  return quoted(`**Corrected**${byWhom(correction.by, correction.at)}.${note}\n\nThe earlier text:\n\n${earlier}`);
}

function approvalNote(approval: StepApproval | undefined): string | undefined {
  if (approval === undefined) return undefined;
  switch (approval.state) {
    case 'pending':
      return quoted(`**Waiting for approval**${approval.requestedAt === undefined ? '' : ` since ${approval.requestedAt}`}: the tool has not run.`);
    case 'approved':
      return quoted(`**Approved**${byWhom(approval.by, approval.at)}.`);
    case 'edited':
      return quoted(`**Edited and approved**${byWhom(approval.by, approval.at)}.`);
    case 'rejected':
      if (approval.by === TIMEOUT_DECIDER) return quoted(`**Not approved in time**: timed out${byWhom(undefined, approval.at)}; the tool did not run.`);
      return quoted(`**Rejected**${byWhom(approval.by, approval.at)}.${approval.reason === undefined ? '' : ` Reason: “${approval.reason}”`}`);
    default:
      return quoted(`**Approval**: ${String(approval.state)}${byWhom(approval.by, approval.at)}.`);
  }
}

function refusalNote(step: Step): string | undefined {
  if (step.kind !== 'observation' || !isRefusalResult(step.result)) return undefined;
  const { by, reason } = step.result;
  const why = by === TIMEOUT_DECIDER ? 'no decision was made in time' : `it was rejected by ${by}${reason === undefined ? '' : ` (“${reason}”)`}`;
  return quoted(`**Refused**: the tool did not run, because ${why}.`);
}

function heading(step: Step): string {
  const name = HEADINGS[step.kind] ?? step.kind;
  return `### ${name}${step.tool === undefined ? '' : ` · \`${step.tool}\``}`;
}

function body(step: Step): string {
  if (step.kind === 'tool_call') return toolInput(step.content);
  if (step.content !== '') return step.content;
  if (step.kind === 'observation' && step.result !== undefined && !isRefusalResult(step.result)) return fenced(JSON.stringify(step.result, null, 2), 'json');
  return '_(empty)_';
}

function stepSection(step: Step): string {
  const streaming = step.status === 'streaming' ? '\n\n_(still being written)_' : '';
  const main = step.kind === 'user_message' ? `**You:** ${step.content}${streaming}` : `${heading(step)}\n\n${body(step)}${streaming}`;
  const notes = [correctionNote(step), approvalNote(step.approval), refusalNote(step)].filter((note): note is string => note !== undefined);
  return [main, ...notes].join('\n\n');
}

function titleOf(task: string): string {
  const line = task.replace(/\s+/g, ' ').trim();
  return line.length > TITLE_MAX ? `${line.slice(0, TITLE_MAX - 1)}…` : line;
}

function statusLine(state: SessionState): string {
  const { status, error, detail } = state.session;
  return `**Status:** ${status}${error === undefined ? '' : ` — ${error}`}${detail === undefined ? '' : ` (${detail})`}`;
}

/** The transcript of the session's current chain, as Markdown. */
export function sessionTranscript(state: SessionState): string {
  const { session } = state;
  const title = titleOf(session.task);
  const parts = [`# ${title}`];
  const origin = session.forkedFrom === undefined ? '' : ` · forked from session ${session.forkedFrom.sessionId} at step ${session.forkedFrom.stepId}`;
  const model = session.model === undefined ? '' : ` · model ${session.model}`;
  parts.push(`_Session ${session.sessionId} · agent ${session.agent}${model} · started ${session.createdAt}${origin}_`);
  // The task is the user's first turn; said again in full when the title had to shorten it.
  if (title !== session.task) parts.push(`**You:** ${session.task}`);
  for (const step of chainSteps(state)) parts.push(stepSection(step));
  if (state.queued.length > 0) {
    parts.push(`**Waiting to reach the chain:**\n\n${state.queued.map((message) => `- (${message.mode}) ${message.text.replace(/\n/g, ' ')}`).join('\n')}`);
  }
  parts.push('---', statusLine(state));
  return `${parts.join('\n\n')}\n`;
}
