import { evaluateExpressionTree } from '../../tools/expression/evaluate.js';
import type { BinaryOperator, ExpressionNode } from '../../tools/expression/parser.js';
import { parseTokens } from '../../tools/expression/parser.js';
import { tokenize } from '../../tools/expression/tokenizer.js';
import { formatNumber, roundResult } from '../../tools/number-format.js';
import { say, type Lang } from './language.js';
import type { PlanStep, StepValue } from './plan.js';

/** An operand of one step: a number from the task (maybe a percentage), or what an earlier step produced. */
type Operand = { number: number; percent: boolean } | { step: number; planned: number };

/** One operation of a compound expression, done by its own calculator call. */
interface Operation {
  op: BinaryOperator;
  left: Operand;
  right: Operand;
}

/** More operations than a spoken expression has: such an expression stays one calculator call. */
const MAX_OPERATIONS = 8;

function leaf(node: ExpressionNode): Operand | undefined {
  if (node.kind === 'number') return { number: node.value, percent: false };
  if (node.kind === 'negate' && node.operand.kind === 'number') return { number: -node.operand.value, percent: false };
  if (node.kind === 'percent' && node.operand.kind === 'number') return { number: node.operand.value, percent: true };
  return undefined;
}

/** The operations of `node` in the order they can be done (operands first); undefined if it has a form this does not split. */
function collect(node: ExpressionNode, operations: Operation[]): Operand | undefined {
  const simple = leaf(node);
  if (simple) return simple;
  if (node.kind !== 'binary') return undefined;
  const left = collect(node.left, operations);
  const right = left === undefined ? undefined : collect(node.right, operations);
  if (!left || !right || operations.length >= MAX_OPERATIONS) return undefined;
  operations.push({ op: node.op, left, right });
  return { step: operations.length - 1, planned: roundResult(evaluateExpressionTree(node)) };
}

/** The operations of a well-formed expression, one per calculator call; undefined when it cannot be split. */
export function splitExpression(expression: string): Operation[] | undefined {
  try {
    const operations: Operation[] = [];
    return collect(parseTokens(tokenize(expression)), operations) ? operations : undefined;
  } catch {
    return undefined;
  }
}

function operandText(operand: Operand, values: ReadonlyArray<StepValue | undefined> | undefined): string {
  const value = 'number' in operand ? operand.number : (values?.[operand.step]?.value ?? operand.planned);
  const text = formatNumber(value) + ('percent' in operand && operand.percent ? '%' : '');
  return value < 0 ? `(${text})` : text;
}

const OPERATION_WORDS: Readonly<Record<BinaryOperator, [string, string]>> = {
  '+': ['add', '相加'],
  '-': ['subtract', '相减'],
  '*': ['multiply', '相乘'],
  '/': ['divide', '相除'],
  '^': ['raise to the power', '求乘方'],
  mod: ['take the remainder', '求余数'],
};

function operandName(lang: Lang, operand: Operand): string {
  if ('number' in operand) return formatNumber(operand.number) + (operand.percent ? '%' : '');
  return say(lang, `result ${operand.step + 1}`, `第${operand.step + 1}步的结果`);
}

/** The plan steps of an expression split into operations: each reads the earlier steps' results from the chain. */
export function operationSteps(lang: Lang, operations: readonly Operation[]): PlanStep[] {
  return operations.map((operation) => {
    const [en, zh] = OPERATION_WORDS[operation.op];
    const left = operandName(lang, operation.left);
    const right = operandName(lang, operation.right);
    const preview =
      operation.op === '^'
        ? say(lang, `Then I'll raise ${left} to the power ${right}.`, `然后求${left}的${right}次方。`)
        : say(lang, `Then I'll ${en} ${left} and ${right}.`, `然后把${left}和${right}${zh}。`);
    return {
      call: (_previous, values) => ({
        tool: 'calculator',
        input: { expression: `${operandText(operation.left, values)} ${operation.op} ${operandText(operation.right, values)}` },
      }),
      preview,
    };
  });
}
