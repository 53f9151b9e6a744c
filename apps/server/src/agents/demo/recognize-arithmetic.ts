import { formatNumber } from '../../tools/number-format.js';
import { answerNumber } from './answer-format.js';
import { findExpression, operatorWordsToSymbols, showExpression, toToolExpression } from './expression-finder.js';
import { splitExpression, operationSteps } from './expression-steps.js';
import { listWords, say, type Lang } from './language.js';
import { calculatorStep, type Outcome, type SolvePlan } from './plan.js';
import type { ProblemFacts } from './problem-facts.js';

const OPERATION_NAMES: ReadonlyArray<[string, string, string]> = [
  ['+', 'addition', '加法'],
  ['−', 'subtraction', '减法'],
  ['×', 'multiplication', '乘法'],
  ['÷', 'division', '除法'],
  ['^', 'a power', '乘方'],
  ['%', 'a percentage', '百分数'],
];

function describeExpression(lang: Lang, shown: string): string {
  const numbers = shown.match(/\d+(?:\.\d+)?/gu) ?? [];
  const operations = OPERATION_NAMES.filter(([symbol]) => shown.replace(/^−/u, '').includes(symbol)).map(([, en, zh]) =>
    say(lang, en, zh),
  );
  const brackets = shown.includes('(');
  return say(
    lang,
    `The task is the expression ${shown}: the numbers ${listWords(lang, numbers)}, combined by ${listWords(lang, operations)}${brackets ? ', brackets first' : ''}.`,
    `题目是算式 ${shown}：数字 ${listWords(lang, numbers)}，运算有${listWords(lang, operations)}${brackets ? '，先算括号里的' : ''}。`,
  );
}

/** The answer to plain arithmetic: the evaluated expression when the calculator ran, else the number. */
export function arithmeticAnswer(lang: Lang, outcome: Outcome): string {
  if (outcome.value === undefined) return say(lang, 'I have no number to report.', '我没有得到可以报告的数字。');
  const { text } = answerNumber(outcome.value);
  if (outcome.fromTool && outcome.call?.tool === 'calculator') {
    const shown = showExpression(outcome.call.input.expression);
    return say(lang, `${shown} = ${formatNumber(outcome.value)}, so the answer is ${text}.`, `${shown} = ${formatNumber(outcome.value)}，答案是 ${text}。`);
  }
  return say(lang, `The answer is ${text}.`, `答案是 ${text}。`);
}

/** A plan that evaluates `expression` (found in a task, a thought, an action or a note). */
export function expressionPlan(lang: Lang, expression: string): SolvePlan {
  const shown = showExpression(expression);
  return {
    kind: 'solve',
    lang,
    thought: describeExpression(lang, shown),
    approach: say(lang, 'Mental arithmetic slips easily, so a tool should do this.', '心算容易出错，交给工具来算。'),
    steps: [calculatorStep(toToolExpression(expression))],
    answer: (outcome) => arithmeticAnswer(lang, outcome),
  };
}

/** "What is 12*(3+4)?", "计算 (15+27)×3": an expression written with symbols. */
export function recognizeExpression(facts: ProblemFacts): SolvePlan | undefined {
  const expression = findExpression(facts.text);
  return expression === undefined ? undefined : expressionPlan(facts.lang, expression);
}

/**
 * An expression said in words with several operations ("the square root of 144 plus 2 cubed"):
 * one calculator call per operation, so each intermediate result is on the chain to check or correct.
 */
function compoundPlan(lang: Lang, expression: string): SolvePlan | undefined {
  const operations = splitExpression(toToolExpression(expression));
  if (!operations || operations.length < 2) return undefined;
  const shown = showExpression(expression);
  const single = expressionPlan(lang, expression);
  return {
    ...single,
    thought: `${single.thought}${say(lang, ` I'll do it one operation at a time: ${operations.length} calculator calls, each result feeding the next.`, `我一步算一个运算，共${operations.length}次计算，每一步的结果用于下一步。`)}`,
    approach: say(lang, 'Separate calls keep every intermediate result visible and correctable.', '分步计算，每个中间结果都看得见、改得了。'),
    steps: operationSteps(lang, operations),
    answer: (outcome) => {
      if (outcome.value === undefined) return say(lang, 'I have no number to report.', '我没有得到可以报告的数字。');
      const { text } = answerNumber(outcome.value);
      return outcome.asPlanned
        ? say(lang, `${shown} = ${formatNumber(outcome.value)}, so the answer is ${text}.`, `${shown} = ${formatNumber(outcome.value)}，答案是 ${text}。`)
        : say(lang, `The answer is ${text}.`, `答案是 ${text}。`);
    },
  };
}

/** "What is 12 times 7?", "12乘以7加3", "the square root of 144 plus 2 cubed": operators written as words. */
export function recognizeOperatorWords(facts: ProblemFacts): SolvePlan | undefined {
  const expression = findExpression(operatorWordsToSymbols(facts.text));
  if (expression === undefined) return undefined;
  return compoundPlan(facts.lang, expression) ?? expressionPlan(facts.lang, expression);
}
