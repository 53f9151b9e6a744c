import { ExpressionError } from './expression-error.js';
import type { ExpressionNode } from './parser.js';

function tooLarge(position: number): ExpressionError {
  return new ExpressionError(`Result too large at position ${position}: it exceeds about 1.8e308`, position);
}

function checked(value: number, position: number): number {
  if (Number.isFinite(value)) return value;
  throw tooLarge(position);
}

function power(base: number, exponent: number, position: number): number {
  if (base === 0 && exponent < 0) throw new ExpressionError(`Division by zero at position ${position}: 0 has no negative power`, position);
  const value = base ** exponent;
  if (Number.isNaN(value)) {
    throw new ExpressionError(
      `No real result at position ${position}: a negative number raised to a fractional power`,
      position,
    );
  }
  return checked(value, position);
}

/**
 * Percentages: `n%` is n/100 everywhere, except directly to the right of + or −, where it is
 * relative to the left side, as on a pocket calculator: `200 + 10%` = 220, `40 − 25%` = 30.
 * So "a price plus tax" and "a price minus a discount" read the way people write them.
 */
function addOrSubtract(node: ExpressionNode & { kind: 'binary' }, left: number): number {
  const sign = node.op === '+' ? 1 : -1;
  if (node.right.kind === 'percent') {
    const rate = evaluateNode(node.right.operand) / 100;
    return checked(left * (1 + sign * rate), node.position);
  }
  const right = evaluateNode(node.right);
  return checked(cancelNoise(left + sign * right, left, right), node.position);
}

/** Rounding error a few units in the last place of the operands, not a real difference. */
const CANCELLATION_ULPS = 4;

/**
 * 0.1 * 3 − 0.3 is 5.55e-17 in binary floating point: the operands differ only by rounding
 * error, which no significant-digit rounding can remove. A sum that small next to its operands is 0.
 */
function cancelNoise(sum: number, left: number, right: number): number {
  const scale = Math.max(Math.abs(left), Math.abs(right));
  return Math.abs(sum) <= scale * Number.EPSILON * CANCELLATION_ULPS ? 0 : sum;
}

function evaluateNode(node: ExpressionNode): number {
  switch (node.kind) {
    case 'number':
      return node.value;
    case 'percent':
      return evaluateNode(node.operand) / 100;
    case 'negate':
      return -evaluateNode(node.operand);
    case 'binary': {
      const left = evaluateNode(node.left);
      switch (node.op) {
        case '+':
        case '-':
          return addOrSubtract(node, left);
        case '*':
          return checked(left * evaluateNode(node.right), node.position);
        case '/': {
          const divisor = evaluateNode(node.right);
          if (divisor === 0) throw new ExpressionError(`Division by zero at position ${node.position}`, node.position);
          return checked(left / divisor, node.position);
        }
        case 'mod': {
          const divisor = evaluateNode(node.right);
          if (divisor === 0) throw new ExpressionError(`Division by zero at position ${node.position}: no remainder of a division by 0`, node.position);
          return checked(left % divisor, node.position);
        }
        case '^':
          return power(left, evaluateNode(node.right), node.position);
      }
    }
  }
}

/** The value of a parsed expression, or an `ExpressionError` (division by zero, overflow, no real result). */
export function evaluateExpressionTree(node: ExpressionNode): number {
  return evaluateNode(node);
}
