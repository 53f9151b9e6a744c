import { z } from 'zod';
import { FIELD_LIMITS } from './limits.js';
import { IdSchema, TimestampSchema, requestBase, sessionEventBase } from './common.js';

/*
 * The agent asks the user (capability `questions`, PROTOCOL.md §25.1–§25.2): a `tool_call` of the
 * built-in `ask_user` tool makes the session wait for an answer; `input.provide` answers it, and
 * the answer becomes the call's observation.
 */

/** The built-in tool an agent asks the user with. */
export const ASK_USER_TOOL = 'ask_user';

export const ASK_USER_LIMITS = { questionMax: 2_000, choicesMax: 10, choiceMax: 200, answerMax: FIELD_LIMITS.messageMax, detailQuestionMax: 200 } as const;

/** `ask_user`'s input: the question, and answers the user may pick with one click. */
export const AskUserInputSchema = z
  .strictObject({
    question: z.string().min(1).max(ASK_USER_LIMITS.questionMax).describe('The question, as the user will read it.'),
    choices: z
      .array(z.string().min(1).max(ASK_USER_LIMITS.choiceMax))
      .min(1)
      .max(ASK_USER_LIMITS.choicesMax)
      .refine((choices) => new Set(choices).size === choices.length, 'choices must be distinct')
      .optional()
      .describe('Answers the user can pick with one click; they may still answer in their own words.'),
  })
  .describe('Ask the user a question and wait for the answer.');

/** Where a question stands: waiting, answered, or closed by the server as unanswered. */
export const QuestionStateSchema = z.enum(['pending', 'answered', 'timed_out']);

/** How a question was closed. */
export const InputOutcomeSchema = z.enum(['answered', 'timed_out']);

/** The trail an `ask_user` call carries once its question was asked. */
export const StepQuestionSchema = z.looseObject({
  state: QuestionStateSchema,
  requestedAt: TimestampSchema.optional(),
  /** Who answered: a user id (else a connection id), or `server` for a timeout. */
  by: z.string().optional(),
  byName: z.string().optional(),
  at: TimestampSchema.optional(),
});

/** `input.requested`: an `ask_user` call waits for the user's answer. */
export const InputRequestedEventSchema = z.looseObject({
  type: z.literal('input.requested'),
  ...sessionEventBase,
  stepId: IdSchema,
  question: z.string(),
  choices: z.array(z.string()).optional(),
});

/** `input.resolved`: the question was answered or timed out; the requester's copy answers `input.provide`. */
export const InputResolvedEventSchema = z.looseObject({
  type: z.literal('input.resolved'),
  ...sessionEventBase,
  requestId: z.string().optional(),
  stepId: IdSchema,
  outcome: InputOutcomeSchema,
  by: z.string(),
  byName: z.string().optional(),
});

/** `input.provide`: answer the question an `ask_user` call asked. */
export const InputProvideRequestSchema = z.strictObject({
  type: z.literal('input.provide'),
  ...requestBase,
  sessionId: IdSchema,
  stepId: IdSchema,
  text: z.string().min(1).max(ASK_USER_LIMITS.answerMax),
});

/** The `result` of the observation that carries the user's answer. */
export interface AnswerResult {
  answer: string;
  by: string;
  byName?: string;
  /** The index of the choice the answer equals, when it equals one. */
  choice?: number;
}

/** The `result` of the observation of a question nobody answered in time. */
export interface UnansweredResult {
  unanswered: true;
  reason: string;
}

/** What an `ask_user` call's content asks, or undefined when it is not a valid `ask_user` input. */
export function parseAskUserInput(content: string): AskUserInput | undefined {
  let input: unknown;
  try {
    input = JSON.parse(content);
  } catch {
    return undefined;
  }
  const parsed = AskUserInputSchema.safeParse(input);
  return parsed.success ? parsed.data : undefined;
}

/** The answer's result: who gave it and, when the text is one of the choices, which one. */
export function answerResult(text: string, by: string, byName: string | undefined, choices: readonly string[] | undefined): AnswerResult {
  const result: AnswerResult = { answer: text, by };
  if (byName !== undefined) result.byName = byName;
  const choice = choices?.indexOf(text) ?? -1;
  if (choice >= 0) result.choice = choice;
  return result;
}

export type AskUserInput = z.infer<typeof AskUserInputSchema>;
export type QuestionState = z.infer<typeof QuestionStateSchema>;
export type InputOutcome = z.infer<typeof InputOutcomeSchema>;
export type StepQuestion = z.infer<typeof StepQuestionSchema>;
export type InputRequestedEvent = z.infer<typeof InputRequestedEventSchema>;
export type InputResolvedEvent = z.infer<typeof InputResolvedEventSchema>;
export type InputProvideRequest = z.infer<typeof InputProvideRequestSchema>;
