import { attributionOf, chainSteps, isRefusalResult, type Reader, type SessionState, type Step, type StepApproval } from '@interthought/protocol';
import { TIMEOUT_DECIDER } from '../commands/approvals.js';
import { TRANSCRIPT_WORDS, type TranscriptLanguage, type TranscriptWords } from './transcript-words.js';

/*
 * A session's transcript as Markdown (PROTOCOL.md §20.5, `format=md`): its current chain for
 * people to read, with the user's turns, every step under its number and kind, and the
 * corrections, approval decisions and refusals noted where they happened, said for the reader
 * ("you", a name, "someone with a share link"), with times in the reader's zone. Agent and user
 * text is kept as it is (it is Markdown already); what the server adds is in the reader's language.
 */

const TITLE_MAX = 120;

/** For whom a transcript is written: their zone (IANA, default UTC), language and who they are. */
export interface TranscriptReader {
  timeZone?: string;
  lang?: TranscriptLanguage;
  reader?: Reader;
}

/** What every part of one transcript writes with. */
interface Pen {
  words: TranscriptWords;
  reader: Reader;
  time(at: string | undefined): string | undefined;
  who(by: string | undefined, byName?: string): string | undefined;
}

function penFor(options: TranscriptReader): Pen {
  const words = TRANSCRIPT_WORDS[options.lang ?? 'en'];
  const reader = options.reader ?? {};
  const format = new Intl.DateTimeFormat(words.locale, { timeZone: options.timeZone ?? 'UTC', dateStyle: 'medium', timeStyle: 'medium' });
  return {
    words,
    reader,
    time(at) {
      if (at === undefined) return undefined;
      const date = new Date(at);
      return Number.isNaN(date.getTime()) ? at : format.format(date);
    },
    who: (by, byName) => (by === undefined ? undefined : words.who(attributionOf(by, byName, reader))),
  };
}

/** Whether `timeZone` is one `Intl` knows (an IANA name such as `Europe/Berlin`, or `UTC`). */
export function isKnownTimeZone(timeZone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone });
    return true;
  } catch {
    return false;
  }
}

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

function correctionNote(pen: Pen, step: Step): string | undefined {
  const { correction } = step;
  if (correction === undefined) return undefined;
  const note = correction.note === undefined || correction.note === '' ? undefined : correction.note;
  const earlier = step.kind === 'tool_call' ? toolInput(correction.previousContent) : quoted(correction.previousContent || pen.words.empty);
  const byAt = pen.words.byAt(pen.who(correction.by, correction.byName), pen.time(correction.at));
  return quoted(`${pen.words.corrected(byAt, note)}\n\n${pen.words.earlier}\n\n${earlier}`);
}

function approvalNote(pen: Pen, approval: StepApproval | undefined): string | undefined {
  if (approval === undefined) return undefined;
  const { words } = pen;
  const byAt = words.byAt(pen.who(approval.by, approval.byName), pen.time(approval.at));
  switch (approval.state) {
    case 'pending':
      return quoted(words.waiting(pen.time(approval.requestedAt)));
    case 'approved':
      return quoted(words.approved(byAt));
    case 'edited':
      return quoted(words.edited(byAt));
    case 'rejected':
      if (approval.by === TIMEOUT_DECIDER) return quoted(words.timedOut(pen.time(approval.at)));
      return quoted(words.rejected(byAt, approval.reason));
    default:
      return quoted(words.otherDecision(String(approval.state), byAt));
  }
}

function refusalNote(pen: Pen, step: Step, byName: string | undefined): string | undefined {
  if (step.kind !== 'observation' || !isRefusalResult(step.result)) return undefined;
  const { by, reason } = step.result;
  return quoted(pen.words.refused(by === TIMEOUT_DECIDER ? 'timeout' : { who: pen.who(by, byName) ?? by, reason }));
}

function heading(pen: Pen, step: Step): string {
  const kind = pen.words.kinds[step.kind] ?? step.kind;
  return `### ${pen.words.step(String(step.index + 1), kind)}${step.tool === undefined ? '' : ` · \`${step.tool}\``}`;
}

function body(pen: Pen, step: Step): string {
  if (step.kind === 'tool_call') return toolInput(step.content);
  if (step.content !== '') return step.content;
  if (step.kind === 'observation' && step.result !== undefined && !isRefusalResult(step.result)) return fenced(JSON.stringify(step.result, null, 2), 'json');
  return pen.words.emptyStep;
}

function speakerOf(pen: Pen, by: string | undefined, byName: string | undefined): string {
  // A turn without an author (an older record, the task) is the reader's own, as the UI shows it.
  return pen.words.speaker(by === undefined ? { kind: 'you' } : attributionOf(by, byName, pen.reader));
}

function stepSection(pen: Pen, state: SessionState, step: Step): string {
  const streaming = step.status === 'streaming' ? `\n\n${pen.words.streaming}` : '';
  const main =
    step.kind === 'user_message' ? `${pen.words.turn(speakerOf(pen, step.by, step.byName))} ${step.content}${streaming}` : `${heading(pen, step)}\n\n${body(pen, step)}${streaming}`;
  // A refusal records who by id; the name is on the decision of the call it answers (its parent).
  const parent = step.parentId === null ? undefined : state.steps.get(step.parentId);
  const refuserName = parent?.approval?.by !== undefined && isRefusalResult(step.result) && parent.approval.by === step.result.by ? parent.approval.byName : undefined;
  const notes = [correctionNote(pen, step), approvalNote(pen, step.approval), refusalNote(pen, step, refuserName)].filter((note): note is string => note !== undefined);
  return [main, ...notes].join('\n\n');
}

function titleOf(task: string): string {
  const line = task.replace(/\s+/g, ' ').trim();
  return line.length > TITLE_MAX ? `${line.slice(0, TITLE_MAX - 1)}…` : line;
}

/** The number people know the forked step by: its copy's place in this chain, else the index the fork recorded. */
function forkStepNumber(state: SessionState): string | undefined {
  const origin = state.session.forkedFrom;
  if (origin === undefined) return undefined;
  for (const step of state.steps.values()) {
    if (step.copiedFrom?.stepId === origin.stepId) return String(step.index + 1);
  }
  return origin.index === undefined ? undefined : String(origin.index + 1);
}

/** The transcript of the session's current chain, as Markdown, for `options`' reader (UTC, English, no users by default). */
export function sessionTranscript(state: SessionState, options: TranscriptReader = {}): string {
  const pen = penFor(options);
  const { words } = pen;
  const { session } = state;
  const title = titleOf(session.task);
  const parts = [`# ${title}`];
  const fork = session.forkedFrom === undefined ? undefined : { sessionId: session.forkedFrom.sessionId, step: forkStepNumber(state) };
  parts.push(
    words.header({ sessionId: session.sessionId, agent: session.agent, model: session.model, started: pen.time(session.createdAt) ?? session.createdAt, fork, zone: options.timeZone ?? 'UTC' }),
  );
  // The task is the user's first turn; said again in full when the title had to shorten it.
  if (title !== session.task) parts.push(`${words.turn(speakerOf(pen, undefined, undefined))} ${session.task}`);
  for (const step of chainSteps(state)) parts.push(stepSection(pen, state, step));
  if (state.queued.length > 0) {
    parts.push(`${words.queued}\n\n${state.queued.map((message) => `- (${message.mode}) ${message.text.replace(/\n/g, ' ')}`).join('\n')}`);
  }
  parts.push('---', words.status(session.status, session.error, session.detail));
  return `${parts.join('\n\n')}\n`;
}
