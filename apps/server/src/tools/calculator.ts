import { z } from 'zod';
import { evaluateExpression, ExpressionError } from './expression/index.js';
import { formatNumber } from './number-format.js';
import type { Tool } from './tool.js';

/** Long enough for any hand-written expression; the bound keeps parsing trivially cheap. */
export const EXPRESSION_MAX_LENGTH = 1_000;

const CalculatorInputSchema = z.strictObject({
  expression: z
    .string()
    .max(EXPRESSION_MAX_LENGTH)
    .describe('An arithmetic expression, e.g. "12 * (3 + 4)", "2^10", "200 * 15%", "40 - 25%" or "17 mod 5".'),
});

export type CalculatorInput = z.infer<typeof CalculatorInputSchema>;

/** What the calculator returns as structured output. */
export interface CalculatorOutput {
  expression: string;
  value: number;
}

/**
 * Exact arithmetic with its own parser (no eval): + − × ÷ ^, brackets, decimals, signs,
 * percentages. `n%` is n/100, except right after + or − where it is relative to the left side
 * (`200 + 10%` = 220, `40 − 25%` = 30).
 */
export const calculatorTool: Tool<CalculatorInput> = {
  name: 'calculator',
  effect: 'read',
  description:
    'Evaluate an arithmetic expression exactly. Supports + - * / ^ (also × ÷ −), parentheses, decimals and ' +
    'percentages: "15%" is 0.15, "200 * 15%" is 30, and a percentage right after + or - is relative ' +
    '("40 - 25%" is 30, "200 + 10%" is 220); "a mod b" is the remainder of a ÷ b ("17 mod 5" is 2).',
  inputSchema: CalculatorInputSchema,
  async execute(input, signal) {
    signal.throwIfAborted();
    const parsed = CalculatorInputSchema.safeParse(input);
    if (!parsed.success) {
      const tooLong = typeof input?.expression === 'string' && input.expression.length > EXPRESSION_MAX_LENGTH;
      throw new ExpressionError(
        tooLong
          ? `Expression is too long: at most ${EXPRESSION_MAX_LENGTH} characters`
          : 'The calculator needs { "expression": "<arithmetic>" }',
      );
    }
    const { expression } = parsed.data;
    const { value, shown } = evaluateExpression(expression);
    const output: CalculatorOutput = { expression, value };
    return { output, text: `${shown} = ${formatNumber(value)}` };
  },
};
