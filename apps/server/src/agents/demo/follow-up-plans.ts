import { formatNumber } from '../../tools/number-format.js';
import { formatWithUnit } from './answer-format.js';
import { showExpression } from './expression-finder.js';
import { describeOperations, operationExpression, showOperations, type AnswerOperation, type Question } from './follow-up-question.js';
import { say, type Lang } from './language.js';
import type { Outcome, Plan, PlannedCall, PlanStep, Settled, SolvePlan, StepValue } from './plan.js';
import { analyseTask } from './problem-analyser.js';
import { addedDaysAnswer } from './recognize-date.js';
import { unitPartsPlan } from './task-unit-parts.js';
import { resultUnitOf, withUnitParts } from './answer-in-units.js';
import { findUnit } from '../../tools/units.js';

/** The tool call of one operation on `from`: a date moves by days on the calendar, a number goes to the calculator. */
function operationCall(from: StepValue | undefined, operation: AnswerOperation): PlannedCall {
  const { op, operand, percent } = operation;
  if (from?.value === undefined && from?.date !== undefined && (op === '+' || op === '-') && !percent) {
    return { tool: 'date_calculator', input: { operation: 'add_days', start: from.date, days: op === '+' ? operand : -operand } };
  }
  if (from?.value !== undefined) return { tool: 'calculator', input: { expression: operationExpression(from.value, operation) } };
  // No number to start from (a date cannot be multiplied): the calculator reports the problem on the chain, nothing is made up.
  return { tool: 'calculator', input: { expression: `${from?.date ?? '?'} ${op} ${formatNumber(operand)}` } };
}

/** One plan step per operation: each starts from the previous step's result (the first, from `start` when given). `onDate`: they move a date. */
function operationSteps(lang: Lang, operations: readonly AnswerOperation[], onDate: boolean, start?: StepValue): PlanStep[] {
  return operations.map((operation, index) => ({
    call: (previous) => operationCall(index === 0 && start ? start : previous, operation),
    preview: say(lang, `Then I'll ${describeOperations(lang, [operation], onDate)}.`, `然后${describeOperations(lang, [operation], onDate)}。`),
  }));
}

/** A plan whose result is a date (its last call adds days), so operations on it move the date. */
function endsInDate(plan: SolvePlan): boolean {
  const last = plan.steps[plan.steps.length - 1]?.call(undefined, []);
  return last?.tool === 'date_calculator' && last.input.operation === 'add_days';
}

/** The answer after the operations: "36 + 10 = 46, so the answer is 46.", in the unit of the answer they started from. */
function operationsAnswer(lang: Lang, outcome: Outcome, unit?: string): string {
  if (outcome.call?.tool === 'date_calculator') return addedDaysAnswer(lang, outcome);
  if (outcome.value === undefined) return say(lang, 'I have no number to report.', '我没有得到可以报告的数字。');
  const shown = formatWithUnit(lang, outcome.value, unit);
  if (outcome.fromTool && outcome.call?.tool === 'calculator') {
    const expression = showExpression(outcome.call.input.expression);
    return say(lang, `${expression} = ${formatNumber(outcome.value)}, so the answer is ${shown}.`, `${expression} = ${formatNumber(outcome.value)}，答案是${shown}。`);
  }
  return say(lang, `The answer is ${shown}.`, `答案是${shown}。`);
}

/** A known answer as a thought names it: 36, 4.83 kilometres, 2024-01-31. */
function showValue(lang: Lang, value: StepValue): string {
  return value.value === undefined ? (value.date ?? '') : formatWithUnit(lang, value.value, value.unit);
}

/**
 * Operations on an answer the chain already holds: "Add 10 to that." after "15% of 240 is 36."
 * is one calculator call, 36 + 10. `from` says how the thought introduces that answer.
 */
export function operationsPlan(lang: Lang, start: StepValue, operations: readonly AnswerOperation[], from: 'previous' | 'earlier'): SolvePlan {
  const value = showValue(lang, start);
  const expression = start.value === undefined ? '' : showOperations(formatNumber(start.value), operations);
  const onDate = start.value === undefined && start.date !== undefined;
  const described = describeOperations(lang, operations, onDate);
  const oneAtATime = operations.length > 1 ? say(lang, ' One operation at a time, so each result is on the chain.', '一步算一个运算，每个结果都留在链上。') : '';
  const opening =
    from === 'previous'
      ? say(lang, `The previous answer is ${value}. You asked me to ${described}`, `上一个答案是${value}。你要我${described}`)
      : say(lang, `Starting from the earlier answer, ${value}, I'll ${described}`, `从之前的答案${value}开始，${described}`);
  return {
    kind: 'solve',
    lang,
    thought: opening + (expression ? say(lang, `: ${expression}.`, `：${expression}。`) : say(lang, '.', '。')) + oneAtATime,
    approach: say(lang, 'A calculation on the previous answer.', '在上一个答案的基础上计算。'),
    steps: operationSteps(lang, operations, onDate, start),
    answer: (outcome) => operationsAnswer(lang, outcome, start.unit),
  };
}

/**
 * A plan for a question: its problem text solved as a task (or its known start taken as it is),
 * then its operations, one tool call each.
 */
export function questionPlan(lang: Lang, question: Question): Plan {
  const plan = questionPlanInOwnUnit(lang, question);
  const unit = question.unit === undefined ? undefined : findUnit(question.unit);
  // The unit the user asked for: the result converted into it, as that earlier answer was.
  if (!unit || plan.kind !== 'solve' || resultUnitOf(plan) === unit) return plan;
  return withUnitParts(lang, plan, [{ request: { kind: 'unit', unit }, text: '' }]);
}

function questionPlanInOwnUnit(lang: Lang, question: Question): Plan {
  const { text, operations, start } = question;
  // A task that also asked for its answer in other units ("…, and what is that in kilograms?") keeps asking it.
  if (operations.length === 0) return unitPartsPlan(text, lang) ?? analyseTask(text, lang);
  if (start) return operationsPlan(lang, start, operations, 'earlier');
  const base = analyseTask(text, lang);
  if (base.kind !== 'solve') return base;
  const onDate = endsInDate(base);
  const described = describeOperations(lang, operations, onDate);
  return {
    ...base,
    thought: `${base.thought}${say(lang, ` Then I'll ${described}.`, `然后${described}。`)}`,
    steps: [...base.steps, ...operationSteps(lang, operations, onDate)],
    answer: (outcome: Outcome) => operationsAnswer(lang, outcome),
  };
}

/** The plan with words before its thought and before its answer (the answer's lead is not said when a tool failed). */
export function withLeads(plan: Plan, leads: { thought?: string; answer?: string }): Plan {
  const thought = (leads.thought ?? '') + plan.thought;
  const lead = leads.answer ?? '';
  switch (plan.kind) {
    case 'solve':
      return { ...plan, thought, answer: (outcome: Outcome) => lead + plan.answer(outcome) };
    case 'advice':
      return { ...plan, thought };
    case 'reply':
      return { ...plan, thought };
    case 'ask':
      // The answer's lead belongs to the plan the user's answer settles.
      return { ...plan, thought, settle: (reply) => settledWithLead(plan.settle(reply), lead) };
  }
}

function settledWithLead(settled: Settled, lead: string): Settled {
  return lead ? { ...settled, plan: withLeads(settled.plan, { answer: lead }) } : settled;
}
