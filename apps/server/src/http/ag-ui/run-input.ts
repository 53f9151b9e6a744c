import { SessionOptionsSchema, type SessionOptions } from '@interthought/protocol';
import { contentToText, type Message, type RunAgentInput } from '@ag-ui/core';
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

/** What Interthought reads of `forwardedProps.interthought`: the options of a thread's new session. */
const ForwardedSchema = z.looseObject({
  interthought: z.looseObject({ options: SessionOptionsSchema.optional() }).optional(),
});

/** What the run decides about a call that waits: by its interrupt's id, the call's step id. */
export type ApprovalDecision =
  | { stepId: string; decision: 'approve' }
  | { stepId: string; decision: 'edit'; args: Record<string, unknown> }
  | { stepId: string; decision: 'reject'; reason: string };

export interface ParsedRun {
  input: RunAgentInput;
  options: SessionOptions | undefined;
  decisions: ApprovalDecision[];
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
  const decisions = (input.resume ?? []).map((entry, index): ApprovalDecision => {
    if (entry.status === 'cancelled') return { stepId: entry.interruptId, decision: 'reject', reason: 'cancelled by the AG-UI client' };
    const answer = ApprovalAnswerSchema.safeParse(entry.payload);
    if (!answer.success) throw new RunInputError(`resume.${index}.payload must be { approved, editedArgs? }: ${issuesOf(answer.error)}.`);
    const { approved, editedArgs, reason } = answer.data;
    if (!approved) return { stepId: entry.interruptId, decision: 'reject', reason: reason ?? 'rejected in the AG-UI client' };
    return editedArgs === undefined ? { stepId: entry.interruptId, decision: 'approve' } : { stepId: entry.interruptId, decision: 'edit', args: editedArgs };
  });
  return { input, options: forwarded.data.interthought?.options, decisions };
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
