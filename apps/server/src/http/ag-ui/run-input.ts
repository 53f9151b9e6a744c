import { InputProvideRequestSchema, isWellFormedText, SessionOptionsSchema, type SessionOptions } from '@interthought/protocol';
import { contentToText, type Message, type ResumeEntry, type RunAgentInput } from '@ag-ui/core';
import { RunAgentInputSchema } from '@ag-ui/core/schemas';
import { z } from 'zod';

/** A thread id the server can make a session id of (an AG-UI client's uuid is one). */
const NEW_THREAD_ID = /^[A-Za-z0-9_-]{1,128}$/;

/** The answer to an approval interrupt, in `resume[].payload`: approve, edit (with `editedArgs`), or refuse. */
const ApprovalAnswerSchema = z.looseObject({
  approved: z.boolean(),
  editedArgs: z.record(z.string(), z.unknown()).optional(),
  reason: z.string().max(2_000).optional(),
});

/** The answer to a question's interrupt (PROTOCOL.md §25.6): `{ text }`, or the text itself; `input.provide`'s limits. */
const AnswerTextSchema = InputProvideRequestSchema.shape.text.refine(isWellFormedText, 'must be well-formed text (no lone surrogates)');
const QuestionAnswerSchema = z.union([AnswerTextSchema, z.looseObject({ text: AnswerTextSchema })]);

/** What Interthought reads of `forwardedProps.interthought`: the options of a thread's new session. */
const ForwardedSchema = z.looseObject({
  interthought: z.looseObject({ options: SessionOptionsSchema.optional() }).optional(),
});

/**
 * What a resume entry says about a call that waits, by its interrupt's id (the call's step id).
 * `cancel` means what the call is: a refusal of a call that waits for approval, nothing for a
 * question, which goes on waiting (PROTOCOL.md §25.6).
 */
export type ResumeDecision =
  | { stepId: string; decision: 'approve' }
  | { stepId: string; decision: 'edit'; args: Record<string, unknown> }
  | { stepId: string; decision: 'reject'; reason: string }
  | { stepId: string; decision: 'answer'; text: string }
  | { stepId: string; decision: 'cancel' };

export interface ParsedRun {
  input: RunAgentInput;
  options: SessionOptions | undefined;
  decisions: ResumeDecision[];
}

/** The reason a request is refused before its stream opens. */
export class RunInputError extends Error {}

function issuesOf(error: z.ZodError): string {
  return error.issues.map((issue) => `${issue.path.join('.') || '(body)'}: ${issue.message}`).join('; ');
}

/** Check `body` as a `RunAgentInput` (the `@ag-ui/core` schema) and read what Interthought takes from it. */
export function parseRun(body: unknown): ParsedRun {
  const parsed = RunAgentInputSchema.safeParse(body);
  if (!parsed.success) throw new RunInputError(`Not a RunAgentInput: ${issuesOf(parsed.error)}.`);
  const input = parsed.data as RunAgentInput;
  const forwarded = ForwardedSchema.safeParse(input.forwardedProps ?? {});
  if (!forwarded.success) throw new RunInputError(`Bad forwardedProps.interthought: ${issuesOf(forwarded.error)}.`);
  const decisions = (input.resume ?? []).map((entry, index) => decisionOf(entry, index));
  return { input, options: forwarded.data.interthought?.options, decisions };
}

/** A resume entry read: `{ approved, … }` decides an approval, `{ text }` (or a string) answers a question. */
function decisionOf(entry: ResumeEntry, index: number): ResumeDecision {
  const stepId = entry.interruptId;
  if (entry.status === 'cancelled') return { stepId, decision: 'cancel' };
  const payload: unknown = entry.payload;
  const approvalLike = typeof payload === 'object' && payload !== null && 'approved' in payload;
  if (!approvalLike) {
    const answer = QuestionAnswerSchema.safeParse(payload);
    if (answer.success) return { stepId, decision: 'answer', text: typeof answer.data === 'string' ? answer.data : answer.data.text };
    if (typeof payload === 'string' || (typeof payload === 'object' && payload !== null && 'text' in payload)) {
      throw new RunInputError(`resume.${index}.payload answers a question with { text }: ${issuesOf(answer.error)}.`);
    }
  }
  const answer = ApprovalAnswerSchema.safeParse(payload);
  if (!answer.success) {
    throw new RunInputError(`resume.${index}.payload must be { approved, editedArgs?, reason? } for a tool call, or { text } for a question: ${issuesOf(answer.error)}.`);
  }
  const { approved, editedArgs, reason } = answer.data;
  if (!approved) return { stepId, decision: 'reject', reason: reason ?? 'rejected in the AG-UI client' };
  return editedArgs === undefined ? { stepId, decision: 'approve' } : { stepId, decision: 'edit', args: editedArgs };
}

/** The task of a thread's first run: its last user message. */
export function taskOf(input: RunAgentInput): string {
  const last = input.messages.findLast((message) => message.role === 'user');
  const text = last === undefined ? '' : textOf(last);
  if (text.trim() === '') throw new RunInputError('A new thread needs a user message: its last one is the task.');
  if (!NEW_THREAD_ID.test(input.threadId)) {
    throw new RunInputError('A new thread id is the session id: 1 to 128 letters, digits, "-" or "_" (a uuid is fine).');
  }
  return text;
}

/**
 * What the user said since the agent last answered: the user messages after the last message that
 * is not the user's, joined; empty when there are none (a run that only repeats the thread).
 */
export function newUserText(messages: readonly Message[]): string {
  const lastOther = messages.findLastIndex((message) => message.role !== 'user');
  return messages
    .slice(lastOther + 1)
    .map(textOf)
    .filter((text) => text.trim() !== '')
    .join('\n\n');
}

function textOf(message: Message): string {
  if (message.role !== 'user') return '';
  return typeof message.content === 'string' ? message.content : contentToText(message.content);
}
