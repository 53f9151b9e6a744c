import { describeOperations, showOperations, type Question } from './follow-up-question.js';
import { operationsPlan, questionPlan, withLeads } from './follow-up-plans.js';
import { whichNumberPlan } from './ask-which-number.js';
import { noResultPlan, notUnderstoodPlan, numberNotFoundPlan } from './follow-up-replies.js';
import { say, type Lang } from './language.js';
import type { Plan, StepValue } from './plan.js';
import { isOpenTask } from './open-task.js';
import { analyseTask } from './problem-analyser.js';
import { readProblem } from './problem-facts.js';
import { readAnswerOperations } from './recognize-answer-operation.js';
import { readNamedReplacement, readNewNumbers, type Substitution } from './recognize-substitution.js';
import { readUnitRequest } from './recognize-unit-request.js';
import { unitTurn } from './follow-up-units.js';
import { formatNumber } from '../../tools/number-format.js';

/** Where the conversation stands when the user says something. */
export interface TurnContext {
  /** The language of the answer: the message's (or, for a message without words, the one before). */
  lang: Lang;
  /** What the latest turn answered, or is answering. */
  question: Question;
  /** Its answer, once a final answer gave one. */
  answer?: StepValue;
  /** The run had not finished (or the message came right after another): the message steers it rather than following up. */
  steering: boolean;
}

/** How the agent takes up a message: the plan of its next steps and the conversation after it. */
export interface Turn {
  plan: Plan;
  question: Question;
  answer?: StepValue;
  /** The text the plan solves from scratch, which a corrected thought or action of this turn revises. */
  text: string;
}

/** A known answer with something to compute from. */
function usable(answer: StepValue | undefined): answer is StepValue {
  return answer?.value !== undefined || answer?.date !== undefined;
}

/** Said at the start of a steered turn's answer. */
function following(lang: Lang, what: string): string {
  return say(lang, `Following your instruction (${what}): `, `按照你的要求（${what}），`);
}

/** The message is operations on the previous answer ("Add 10 to that.", "再除以 4"): compute them from it. */
function operationTurn(context: TurnContext, added: Question['operations']): Turn {
  const { lang, question, answer, steering } = context;
  const operations = [...question.operations, ...added];
  const what = describeOperations(lang, added);
  const lead = steering ? { answer: following(lang, what) } : {};
  if (usable(answer)) {
    // The operations so far start from the value before the first of them, so a later change of one operand needs no new solve.
    const next: Question = { text: question.text, operations, start: question.operations.length > 0 && question.start ? question.start : answer };
    const text = answer.value === undefined ? question.text : showOperations(formatNumber(answer.value), added);
    return { plan: withLeads(operationsPlan(lang, answer, added, 'previous'), lead), question: next, text };
  }
  const next: Question = { ...question, operations };
  const plan = questionPlan(lang, next);
  // A finished turn gave no number (it failed, was refused or declined), or not even the question is solvable:
  // nothing to apply the operations to, and the agent does not quietly redo what the user refused.
  if (plan.kind !== 'solve' || !steering) return { plan: noResultPlan(lang, added), question, text: question.text };
  const thought = say(lang, `You asked me to ${what}, so I'll work out the result first. `, `你要我在结果上${what}，所以先算出结果。`);
  return { plan: withLeads(plan, { thought: question.start ? '' : thought, ...lead }), question: next, text: question.text };
}

/** The message changes a number of the question: solve it again with the new number(s). */
function substitutionTurn(context: TurnContext, substitution: Substitution): Turn {
  const { lang, question, answer, steering } = context;
  const keep = (plan: Plan): Turn => ({ plan, question, ...(answer ? { answer } : {}), text: question.text });
  // Which number is meant is the user's to say: ask, and go on with the one they pick (PROTOCOL.md §25.1).
  if (substitution.kind === 'ambiguous') return keep(whichNumberPlan(lang, substitution, answer, (picked) => substitutionTurn(context, picked)));
  if (substitution.kind === 'not-found') return keep(numberNotFoundPlan(lang, substitution.value, question.text, answer));
  const en = substitution.changes.map(({ from, to }) => `${to} instead of ${from}`).join(', ');
  const zh = substitution.changes.map(({ from, to }) => `用${to}代替${from}`).join('，');
  const thought = say(lang, `You asked me to use ${en}, so I'll solve the question again with that change. `, `你要我${zh}，我按这个改动重新解题。`);
  const answerLead = steering ? following(lang, say(lang, en, zh)) : say(lang, `With ${en}: `, `${zh}：`);
  const next = substitution.question;
  return { plan: withLeads(questionPlan(lang, next), { thought, answer: answerLead }), question: next, text: next.text };
}

/** The message is a question of its own ("What is 7 * 8?", "3 英里是多少公里？"). */
function questionTurn(context: TurnContext, message: string, plan: Plan): Turn {
  const { lang, steering } = context;
  const leads = steering
    ? {
        thought: say(lang, 'You asked a new question, so I leave the earlier one and answer this. ', '你提了新的问题，我放下原来的题，改答这个。'),
        answer: say(lang, 'As you asked, I answered your new question: ', '按照你的要求，我改答了新的问题：'),
      }
    : {};
  return { plan: withLeads(plan, leads), question: { text: message, operations: [] }, text: message };
}

/**
 * Read a user message against the conversation and plan the agent's next steps, most specific
 * reading first: operations on the previous answer, a replacement naming both numbers, a
 * question of its own, the answer in another unit, new numbers for the question; else an
 * honest "I did not understand".
 */
export function planTurn(message: string, context: TurnContext): Turn {
  const { lang, question, answer } = context;
  const operations = readAnswerOperations(message);
  if (operations && operations.unclaimed === 0) return operationTurn(context, operations.operations);
  const named = readNamedReplacement(lang, message, question);
  if (named) return substitutionTurn(context, named);
  const asked = analyseTask(message, lang);
  if (asked.kind === 'solve' || asked.kind === 'ask') return questionTurn(context, message, asked);
  // "What is that in kilograms?", "And in pounds?", 「请用千米每小时回答」: the answer in another unit.
  const unit = readUnitRequest(message);
  if (unit) return unitTurn(context, unit, message, usable(answer));
  const numbers = readNewNumbers(lang, message, question);
  if (numbers) return substitutionTurn(context, numbers);
  // Several numbers in no pattern: a question of its own that the analyser declines honestly (it names what it cannot read).
  if (readProblem(message, lang).quantities.length >= 2) return questionTurn(context, message, asked);
  // A request for a language model ("Plan a trip to Kyoto") gets the open-task plan, as a task would.
  if (isOpenTask(message)) return questionTurn(context, message, asked);
  return { plan: notUnderstoodPlan(lang, message, answer), question, ...(answer ? { answer } : {}), text: question.text };
}
