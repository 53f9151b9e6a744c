import { isWellFormedExpression, renderExpression } from '../../tools/calculator/index.js';
import { normaliseExpressionText } from '../../tools/calculator/tokenizer.js';
import { EXPRESSION_MAX_LENGTH } from '../../tools/calculator.js';

const EXPRESSION_RUN = /[\d.\s+\-*/×÷−^()（）%]+/gu;
const DATE = /\d{4}-\d{1,2}-\d{1,2}/u;

function countNumbers(text: string): number {
  return text.match(/\d+(?:\.\d+)?/gu)?.length ?? 0;
}

/** Trim a run found in prose to the expression in it: no sentence-ending dot, no unmatched bracket. */
function trimRun(run: string): string {
  let text = run.trim().replace(/[.\s]+$/u, '');
  const opens = (s: string) => (s.match(/[(（]/gu) ?? []).length;
  const closes = (s: string) => (s.match(/[)）]/gu) ?? []).length;
  while (/^[(（]/u.test(text) && opens(text) > closes(text)) text = text.slice(1).trim();
  while (/[)）]$/u.test(text) && closes(text) > opens(text)) text = text.slice(0, -1).trim();
  return text;
}

/**
 * The arithmetic expression written in a text ("What is 12*(3+4)?" → "12*(3+4)"): the run of
 * digits and operators with the most numbers that parses and combines at least two numbers.
 * Dates (2024-01-01) are not subtractions.
 */
export function findExpression(text: string): string | undefined {
  let best: string | undefined;
  // In prose, "buys 5 (3 + 4)" is a number and an aside, not 5 × (3 + 4): split there.
  const runs = [...text.matchAll(EXPRESSION_RUN)].flatMap((match) => match[0].split(/(?<=\d)\s+(?=[(（])/u));
  for (const run of runs) {
    const candidate = trimRun(run);
    if (candidate.length > EXPRESSION_MAX_LENGTH || countNumbers(candidate) < 2 || DATE.test(candidate)) continue;
    if (!/\d\s*[)）%]?\s*[+\-*/×÷−^(（]/u.test(candidate)) continue;
    if (!isWellFormedExpression(candidate)) continue;
    if (best === undefined || countNumbers(candidate) > countNumbers(best)) best = candidate;
  }
  return best;
}

const ENGLISH_OPERATORS: ReadonlyArray<[RegExp, string]> = [
  [/\b(?:square root of|sqrt)\s*(?:of\s*)?\(?\s*(\d+(?:\.\d+)?)\s*\)?/giu, '$1^0.5'],
  [/\s*\bsquared\b/giu, '^2'],
  [/\s*\bcubed\b/giu, '^3'],
  [/\b(?:to the power of|raised to the power of|raised to)\b/giu, '^'],
  [/\bmultiplied by\b|\btimes\b/giu, '*'],
  [/\bdivided by\b/giu, '/'],
  [/\bplus\b/giu, '+'],
  [/\bminus\b/giu, '-'],
  [/(?<=\d)\s*x\s*(?=\d)/giu, ' * '],
  [/(?<=[+\-*/^]\s*)the\s+/giu, ''],
];

const CHINESE_OPERATORS: ReadonlyArray<[RegExp, string]> = [
  [/(\d+(?:\.\d+)?)的平方根/gu, '$1^0.5'],
  [/的平方/gu, '^2'],
  [/的立方/gu, '^3'],
  [/的(\d+)次方/gu, '^$1'],
  [/(?<=[\d)]\s*)(?:加上|加)(?=\s*[\d(])/gu, '+'],
  [/(?<=[\d)]\s*)(?:减去|减)(?=\s*[\d(])/gu, '-'],
  [/(?<=[\d)]\s*)(?:乘以|乘)(?=\s*[\d(])/gu, '*'],
  [/(?<=[\d)]\s*)除以(?=\s*[\d(])/gu, '/'],
];

/** Operator words as symbols: "12 times 7" → "12 * 7", "12乘以7" → "12*7", "5 squared" → "5^2". */
export function operatorWordsToSymbols(text: string): string {
  let out = text;
  for (const [pattern, symbol] of [...ENGLISH_OPERATORS, ...CHINESE_OPERATORS]) out = out.replace(pattern, symbol);
  return out;
}

/** The expression as a tool_call's JSON carries it: ASCII operators and single spaces, easy to edit. */
export function toToolExpression(expression: string): string {
  return normaliseExpressionText(renderExpression(expression))
    .replace(/\s+/gu, ' ')
    .trim();
}

/** The expression as a sentence shows it: `12 × (3 + 4)`. */
export function showExpression(expression: string): string {
  return renderExpression(expression);
}
