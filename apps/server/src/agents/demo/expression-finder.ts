import { isWellFormedExpression, renderExpression } from '../../tools/expression/index.js';
import { normaliseExpressionText } from '../../tools/expression/tokenizer.js';
import { EXPRESSION_MAX_LENGTH } from '../../tools/calculator.js';

const EXPRESSION_RUN = /[\d.\s+\-*/×÷−^()（）%]+/gu;
const DATE = /\d{4}-\d{1,2}-\d{1,2}/u;
/** A number followed by an operator; one `\s*` on each side of the optional `)` or `%`, never two in a row (that backtracks quadratically on long spaces). */
const OPERATOR_AFTER_NUMBER = /\d\s*(?:[)）%]\s*)?[+\-*/×÷−^(（]/u;

function countNumbers(text: string): number {
  return text.match(/\d+(?:\.\d+)?/gu)?.length ?? 0;
}

const OPENING = new Set(['(', '（']);
const CLOSING = new Set([')', '）']);

function isSpace(char: string | undefined): boolean {
  return char !== undefined && /\s/u.test(char);
}

/**
 * Trim a run found in prose to the expression in it: no sentence-ending dot, no unmatched
 * bracket. One pass from each end (the brackets are counted once), so a run of 20,000
 * brackets or spaces costs 20,000 steps, not 20,000².
 */
function trimRun(run: string): string {
  let start = 0;
  let end = run.length;
  while (end > start && (isSpace(run[end - 1]) || run[end - 1] === '.')) end--;
  while (start < end && isSpace(run[start])) start++;
  let opens = 0;
  let closes = 0;
  for (let i = start; i < end; i++) {
    if (OPENING.has(run[i] ?? '')) opens++;
    else if (CLOSING.has(run[i] ?? '')) closes++;
  }
  while (start < end && OPENING.has(run[start] ?? '') && opens > closes) {
    opens--;
    start++;
    while (start < end && isSpace(run[start])) start++;
  }
  while (end > start && CLOSING.has(run[end - 1] ?? '') && closes > opens) {
    closes--;
    end--;
    while (end > start && isSpace(run[end - 1])) end--;
  }
  return run.slice(start, end);
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
    if (!OPERATOR_AFTER_NUMBER.test(candidate)) continue;
    if (!isWellFormedExpression(candidate)) continue;
    if (best === undefined || countNumbers(candidate) > countNumbers(best)) best = candidate;
  }
  return best;
}

/**
 * Every pattern starts with a literal word or a single character class and never puts two
 * quantifiers over whitespace side by side, so each costs time linear in the text.
 */
const N = String.raw`(?<![\d.])(\d+(?:\.\d+)?)`;
const ENGLISH_OPERATORS: ReadonlyArray<[RegExp, string]> = [
  [new RegExp(String.raw`\bthe sum of\s+${N}\s+and\s+${N}`, 'giu'), '($1 + $2)'],
  [new RegExp(String.raw`\bthe product of\s+${N}\s+and\s+${N}`, 'giu'), '($1 * $2)'],
  [new RegExp(String.raw`\bthe difference between\s+${N}\s+and\s+${N}`, 'giu'), '($1 - $2)'],
  [new RegExp(String.raw`\bhalf of\s+${N}`, 'giu'), '($1 / 2)'],
  [new RegExp(String.raw`\b(?:twice|double)\s+${N}`, 'giu'), '(2 * $1)'],
  [new RegExp(String.raw`\btriple\s+${N}`, 'giu'), '(3 * $1)'],
  [new RegExp(String.raw`\bcube root of\s+${N}`, 'giu'), '$1^(1/3)'],
  [/\b(?:square root of|sqrt)(?:\s*of)?\s*(?:\(\s*)?(\d+(?:\.\d+)?)(?:\s*\))?/giu, '$1^0.5'],
  [/\bsquared\b/giu, '^2'],
  [/\bcubed\b/giu, '^3'],
  [/\b(?:to the power of|raised to the power of|raised to)\b/giu, '^'],
  [/\bmultiplied by\b|\btimes\b/giu, '*'],
  [/\bdivided by\b/giu, '/'],
  [/\bplus\b/giu, '+'],
  [/\bminus\b/giu, '-'],
  [/(?<=\d)\s*x\s*(?=\d)/giu, ' * '],
  [/([+\-*/^]\s*)the\s+/giu, '$1'],
];

const CHINESE_OPERATORS: ReadonlyArray<[RegExp, string]> = [
  [/(?<![\d.])(\d+(?:\.\d+)?)的平方根/gu, '$1^0.5'],
  [/(?<![\d.])(\d+(?:\.\d+)?)\s*(?:开平方|开方)/gu, '$1^0.5'],
  [/根号\s*(\d+(?:\.\d+)?)/gu, '$1^0.5'],
  [new RegExp(String.raw`${N}\s*(?:与|和|加)\s*${N}的和`, 'gu'), '($1 + $2)'],
  [new RegExp(String.raw`${N}\s*(?:与|和|减)\s*${N}的差`, 'gu'), '($1 - $2)'],
  [new RegExp(String.raw`${N}\s*(?:与|和|乘)\s*${N}的积`, 'gu'), '($1 * $2)'],
  [new RegExp(String.raw`${N}的一半`, 'gu'), '($1 / 2)'],
  [new RegExp(String.raw`${N}的\s*${N}\s*倍`, 'gu'), '($1 * $2)'],
  [new RegExp(String.raw`${N}\s*平方(?!根)`, 'gu'), '$1^2'],
  [/的平方/gu, '^2'],
  [/的立方/gu, '^3'],
  [/的(\d+)次方/gu, '^$1'],
  [/([\d)]\s*)(?:加上|加)(?=\s*[\d(])/gu, '$1+'],
  [/([\d)]\s*)(?:减去|减)(?=\s*[\d(])/gu, '$1-'],
  [/([\d)]\s*)(?:乘以|乘)(?=\s*[\d(])/gu, '$1*'],
  [/([\d)]\s*)除以(?=\s*[\d(])/gu, '$1/'],
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
