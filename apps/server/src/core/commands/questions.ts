import {
  ASK_USER_LIMITS,
  ASK_USER_TOOL,
  answerResult,
  inputRefusal,
  parseAskUserInput,
  type AnswerResult,
  type InputOutcome,
  type SessionEvent,
  type Step,
  type UnansweredResult,
} from '@interthought/protocol';
import type { LiveSession } from '../sessions/live-session.js';
import type { ReplyTo } from '../fanout/peer.js';
import { SessionError } from '../session-error.js';
import { checkWellFormed } from './session-input.js';
import { appendWholeObservation, judgeAwaitedStep } from './awaited-step.js';
import { TIMEOUT_DECIDER } from './approvals.js';

/*
 * Questions the agent asks with `ask_user` (PROTOCOL.md §25.1–§25.2): which calls ask, the events
 * that record asking and answering, and the checks of an answer. The commands sequence them.
 */

/** What the observation of a question nobody answered in time says, to people and to the agent (§25.2). */
export const UNANSWERED_TEXT = 'The user did not answer in time.';
export const UNANSWERED_REASON = 'timed out';

/** Whether `step` is an `ask_user` call with valid input: one that makes the session wait (invalid input is answered like any tool's). */
export function isAskUserCall(step: Step): boolean {
  return step.kind === 'tool_call' && step.tool === ASK_USER_TOOL && parseAskUserInput(step.content) !== undefined;
}

/**
 * The head of the chain of `scope` when it is a completed `ask_user` call still without its
 * answer: no run may start there, the server asks it instead (§25.1). A question that was asked
 * and waits counts too; one answered or timed out has its observation after it, so is no head.
 */
export function unansweredQuestion(session: LiveSession, scope: string | undefined): Step | undefined {
  const head = session.head(scope);
  if (head === undefined || head.status === 'streaming' || head.status === 'invalidated' || !isAskUserCall(head)) return undefined;
  return head.question === undefined || head.question.state === 'pending' ? head : undefined;
}

/** The `detail` of a session (or sub-agent) waiting for the answer: the question, cut at 200 characters. */
export function questionDetail(call: Step): string {
  const question = parseAskUserInput(call.content)?.question ?? '';
  let cut = question.slice(0, ASK_USER_LIMITS.detailQuestionMax);
  // A cut between the halves of a surrogate pair would leave text that is not well-formed.
  if (cut.length < question.length && /[\uD800-\uDBFF]$/.test(cut)) cut = cut.slice(0, -1);
  return `Waiting for your answer: ${cut}`;
}

/** Record that the `ask_user` call waits for the user's answer (`input.requested`), once. */
export function appendInputRequested(session: LiveSession, call: Step): void {
  if (call.question !== undefined) return;
  const input = parseAskUserInput(call.content);
  if (input === undefined) return;
  const requested: SessionEvent = { type: 'input.requested', ...session.nextBase(), stepId: call.stepId, question: input.question };
  if (input.choices !== undefined) requested.choices = [...input.choices];
  session.append(requested);
}

/** Record the question and make the session wait for its answer. */
export function appendQuestionRequest(session: LiveSession, call: Step): void {
  appendInputRequested(session, call);
  session.setStatus('waiting', { detail: questionDetail(call) });
}

/** An answer's text: 1 to `answerMax` characters of well-formed text; otherwise `BAD_FRAME` (the core may be called directly). */
export function checkAnswerText(text: unknown): string {
  if (typeof text !== 'string' || text.length === 0 || text.length > ASK_USER_LIMITS.answerMax) {
    throw new SessionError('BAD_FRAME', `An answer must be 1 to ${ASK_USER_LIMITS.answerMax} characters.`, [
      { path: ['text'], message: `Expected 1 to ${ASK_USER_LIMITS.answerMax} characters` },
    ]);
  }
  checkWellFormed('text', text);
  return text;
}

/**
 * The `ask_user` call `stepId` names, waiting for its answer, or a `SessionError` saying why it
 * cannot be answered, in the order of §25.2 (the protocol's `inputRefusal` judges the step).
 */
export function checkAnswer(session: LiveSession, stepId: string): Step {
  const { step, refusal } = judgeAwaitedStep(session, stepId, inputRefusal, 'its questions can no longer be answered.');
  switch (refusal) {
    case undefined:
      return step;
    case 'not_a_question': {
      const what = step.kind === 'tool_call' ? `a ${step.tool ?? 'tool'} call` : `a ${step.kind}`;
      throw new SessionError('INPUT_NOT_PENDING', `Step ${stepId} is ${what}, not a question: only ${ASK_USER_TOOL} calls wait for an answer.`);
    }
    case 'not_asked':
      throw new SessionError('INPUT_NOT_PENDING', `No question was asked with ${stepId}: its input is not a valid ${ASK_USER_TOOL} call, or it was never asked.`);
    case 'already_answered': {
      const { question } = step;
      throw new SessionError(
        'INPUT_NOT_PENDING',
        `The question of ${stepId} was already answered by ${question?.byName ?? question?.by ?? 'someone'}${question?.at === undefined ? '' : ` at ${question.at}`}.`,
      );
    }
    case 'timed_out':
      throw new SessionError('INPUT_NOT_PENDING', `The question of ${stepId} timed out${step.question?.at === undefined ? '' : ` at ${step.question.at}`}: nobody answered in time, and the agent went on.`);
    case 'invalidated':
      throw new SessionError('STEP_INVALIDATED', `The question of ${stepId} was invalidated by a correction; there is nothing to answer.`);
    case 'session_not_waiting':
      throw new SessionError('INPUT_NOT_PENDING', `Session ${session.id} is ${session.status}, not waiting for an answer to ${stepId}.`);
  }
}

export interface Answer {
  call: Step;
  outcome: InputOutcome;
  /** Who answered (a user id, else a connection id), or `server` for a timeout. */
  by: string;
  byName?: string;
  /** The answer's text (absent for a timeout). */
  text?: string;
}

/**
 * Append `input.resolved` (the requester's copy, with `requestId`, answers its request), then
 * the caller sets the status, then `appendAnswerObservation`.
 */
export function appendInputResolved(session: LiveSession, answer: Answer, reply?: ReplyTo): void {
  const resolved: SessionEvent = { type: 'input.resolved', ...session.nextBase(), stepId: answer.call.stepId, outcome: answer.outcome, by: answer.by };
  if (answer.byName !== undefined) resolved.byName = answer.byName;
  session.append(resolved, reply);
}

/**
 * Append the call's observation, a whole step at once (nothing ran, so nothing streams): the
 * answer as its content and result, by whoever gave it; or, timed out, that nobody did.
 */
export function appendAnswerObservation(session: LiveSession, answer: Answer, stepId: string): void {
  const { call } = answer;
  const answered = answer.outcome === 'answered' && answer.text !== undefined;
  const content = answered ? answer.text! : UNANSWERED_TEXT;
  const result: AnswerResult | UnansweredResult = answered
    ? answerResultOf(answer.text!, answer.by, answer.byName, call)
    : { unanswered: true, reason: UNANSWERED_REASON };
  appendWholeObservation(session, call, {
    stepId,
    tool: ASK_USER_TOOL,
    content,
    result,
    by: answered ? answer.by : TIMEOUT_DECIDER,
    ...(answered && answer.byName !== undefined ? { byName: answer.byName } : {}),
  });
}

function answerResultOf(text: string, by: string, byName: string | undefined, call: Step): AnswerResult {
  return answerResult(text, by, byName, parseAskUserInput(call.content)?.choices);
}
