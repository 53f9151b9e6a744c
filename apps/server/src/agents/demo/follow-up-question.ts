import { formatNumber } from '../../tools/number-format.js';
import { showExpression } from './expression-finder.js';
import { say, type Lang } from './language.js';
import type { StepValue } from './plan.js';

/** An operation the user asked to apply to an answer: "add 10", "double it", "再除以 4". */
export interface AnswerOperation {
  op: '+' | '-' | '*' | '/' | '^';
  operand: number;
  /** The operand is a percentage: "add 10%" is 36 + 10% (36 × 1.1), "10% of that" is 36 × 10%. */
  percent: boolean;
  /** The user wrote the operand ("add 10") rather than implied it ("double it" is × 2): only a written one can be replaced later. */
  written: boolean;
}

/**
 * What a turn of the conversation answers: a problem text solved from scratch (the task, the task
 * with a number replaced, a new question in a message), then operations on its answer.
 */
export interface Question {
  text: string;
  operations: AnswerOperation[];
  /** The answer the operations start from, when an earlier turn gave it: the problem text need not be solved again. */
  start?: StepValue;
  /** The unit the user asked the answer in ("What is that in kilograms?"): a later change of a number keeps giving it in that unit. */
  unit?: string;
}

/** The operand as the calculator takes it: 10, 10%, (-5). */
export function operandText(operation: AnswerOperation): string {
  const text = formatNumber(operation.operand) + (operation.percent ? '%' : '');
  return operation.operand < 0 ? `(${text})` : text;
}

/** The calculator expression of one operation on `value`: 36 + 10, (−5) * 2, 36 * 10%. */
export function operationExpression(value: number, operation: AnswerOperation): string {
  const left = value < 0 ? `(${formatNumber(value)})` : formatNumber(value);
  return `${left} ${operation.op} ${operandText(operation)}`;
}

/** The operations applied one after another to `start`, as one expression for a thought: (36 + 10) × 2. */
export function showOperations(start: string, operations: readonly AnswerOperation[]): string {
  let expression = start;
  for (const operation of operations) {
    const grouped = operation.op !== '+' && operation.op !== '-' && /\s/u.test(expression) ? `(${expression})` : expression;
    expression = `${grouped} ${operation.op} ${operandText(operation)}`;
  }
  return showExpression(expression);
}

/** One operation in words, as the user asked it: "add 10 to it", "double it" / "加10", "翻倍"; on a date, "add 10 days to it". */
function describeOperation(lang: Lang, operation: AnswerOperation, onDate: boolean): string {
  const x = formatNumber(operation.operand);
  const { op, percent, written } = operation;
  if (onDate && !percent && op === '+') return say(lang, `add ${x} days to it`, `加${x}天`);
  if (onDate && !percent && op === '-') return say(lang, `subtract ${x} days from it`, `减${x}天`);
  if (op === '+') return percent ? say(lang, `add ${x}% to it`, `加${x}%`) : say(lang, `add ${x} to it`, `加${x}`);
  if (op === '-') return percent ? say(lang, `take ${x}% off it`, `减${x}%`) : say(lang, `subtract ${x} from it`, `减${x}`);
  if (op === '*') {
    if (percent) return say(lang, `take ${x}% of it`, `取它的${x}%`);
    if (!written && operation.operand === 2) return say(lang, 'double it', '翻倍');
    if (!written && operation.operand === 3) return say(lang, 'triple it', '乘以3');
    return say(lang, `multiply it by ${x}`, `乘以${x}`);
  }
  if (op === '/') {
    if (!written && operation.operand === 2) return say(lang, 'halve it', '取一半');
    if (!written && operation.operand === 4) return say(lang, 'take a quarter of it', '取四分之一');
    return say(lang, `divide it by ${x}`, `除以${x}`);
  }
  if (operation.operand === 0.5) return say(lang, 'take its square root', '开平方');
  if (operation.operand === 2) return say(lang, 'square it', '求平方');
  return say(lang, `raise it to the power ${x}`, `求它的${x}次方`);
}

/** The operations in words: "add 10 to it, then double it" / "加10，再翻倍". `onDate`: they move a date by days. */
export function describeOperations(lang: Lang, operations: readonly AnswerOperation[], onDate = false): string {
  return operations.map((operation) => describeOperation(lang, operation, onDate)).join(say(lang, ', then ', '，再'));
}
