import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { evaluateExpression } from '../../src/tools/expression/index.js';

type Tree = { value: number; text: string; precedence: number };

const PRECEDENCE = { '+': 1, '-': 1, '*': 2, '/': 2 } as const;
type Op = keyof typeof PRECEDENCE;

function apply(op: Op, a: number, b: number): number {
  switch (op) {
    case '+':
      return a + b;
    case '-':
      return a - b;
    case '*':
      return a * b;
    case '/':
      return a / b;
  }
}

/**
 * Print a tree with only the brackets precedence and left-associativity require, so the parser
 * must get precedence and associativity right to reproduce the value computed alongside.
 */
function combine(op: Op, left: Tree, right: Tree): Tree {
  const precedence = PRECEDENCE[op];
  const leftText = left.precedence < precedence ? `(${left.text})` : left.text;
  const rightText = right.precedence < precedence || (right.precedence === precedence && right.precedence < 3) ? `(${right.text})` : right.text;
  return { value: apply(op, left.value, right.value), text: `${leftText} ${op} ${rightText}`, precedence };
}

const leaf = fc.oneof(fc.integer({ min: 0, max: 999 }), fc.integer({ min: 1, max: 9999 }).map((n) => n / 100)).map(
  (value): Tree => ({ value, text: String(value), precedence: 3 }),
);

const tree: fc.Arbitrary<Tree> = fc.letrec<{ node: Tree }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    leaf,
    fc.tuple(fc.constantFrom<Op>('+', '-', '*', '/'), tie('node'), tie('node')).map(([op, a, b]) => combine(op, a, b)),
  ),
})).node;

describe('calculator: properties', () => {
  it('evaluates any expression printed with minimal brackets to the value computed alongside it', () => {
    fc.assert(
      fc.property(
        tree.filter((t) => Number.isFinite(t.value) && !t.text.includes('/ 0') && Math.abs(t.value) < 1e12),
        (t) => {
          let actual: number;
          try {
            actual = evaluateExpression(t.text).value;
          } catch (error) {
            // A sub-expression that is zero only after evaluation, e.g. 5 / (2 - 2), is a correct refusal.
            expect((error as Error).message).toMatch(/^Division by zero/u);
            return;
          }
          expect(Math.abs(actual - t.value)).toBeLessThanOrEqual(1e-9 * Math.max(1, Math.abs(t.value)));
        },
      ),
      { numRuns: 400 },
    );
  });

  it('never throws anything but an ExpressionError, whatever the text', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 60, unit: fc.constantFrom(...'0123456789.+-*/^%() ×÷−（）e,a'.split('')) }), (text) => {
        try {
          const { value } = evaluateExpression(text);
          expect(Number.isFinite(value)).toBe(true);
        } catch (error) {
          expect((error as Error).name).toBe('ToolError');
          expect((error as Error).message.length).toBeGreaterThan(0);
        }
      }),
      { numRuns: 1000 },
    );
  });
});
