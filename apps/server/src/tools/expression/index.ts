import { evaluateExpressionTree } from './evaluate.js';
import { parseTokens } from './parser.js';
import { renderTokens } from './render.js';
import { tokenize } from './tokenizer.js';
import { roundResult } from '../number-format.js';

export { ExpressionError } from './expression-error.js';

/** An evaluated expression: its value (floating noise removed) and how it reads on paper. */
export interface Evaluation {
  value: number;
  /** The expression with × ÷ − and spacing, e.g. `12 × (3 + 4)`. */
  shown: string;
}

/** Tokenise, parse and evaluate `expression`; throws an `ExpressionError` with the position at fault. */
export function evaluateExpression(expression: string): Evaluation {
  const tokens = tokenize(expression);
  const value = roundResult(evaluateExpressionTree(parseTokens(tokens)));
  return { value, shown: renderTokens(tokens) };
}

/** Whether `text` is a well-formed expression (it may still fail to evaluate, e.g. division by zero). */
export function isWellFormedExpression(text: string): boolean {
  try {
    parseTokens(tokenize(text));
    return true;
  } catch {
    return false;
  }
}

/** `text` rendered as on paper (`12*(3+4)` → `12 × (3 + 4)`), or the text itself when it does not tokenise. */
export function renderExpression(text: string): string {
  try {
    return renderTokens(tokenize(text));
  } catch {
    return text;
  }
}
