import type { AnswerOperation } from './follow-up-question.js';
import { findQuantities } from './quantities.js';
import { chineseNumeralValue, normaliseProblemText } from './text-normalize.js';

/** What the previous answer is called in a message: "that", "it", "the result", 它, 结果. */
const REF = String.raw`(?:that|it|this|the (?:result|answer|total|number|value)|that (?:result|answer|total|number|value))`;
/** The operand: the number (group `n`) and an optional percent sign (group `p`). */
const NUM = String.raw`(?<![\d.])(?<n>\d+(?:\.\d+)?)(?<p>\s?%)?`;

type Op = AnswerOperation['op'];

/**
 * Words that apply an operation with a written operand to the previous answer. Each pattern
 * starts with a literal word or the number and has no two whitespace quantifiers side by side,
 * so it costs time linear in the message. Earlier patterns claim a number first.
 */
const WITH_OPERAND: ReadonlyArray<{ pattern: RegExp; op: Op; percentOnly?: boolean; tenths?: boolean }> = [
  { pattern: new RegExp(String.raw`\b(?:add|plus)\s+${NUM}`, 'giud'), op: '+' },
  { pattern: new RegExp(String.raw`\b(?:increase|raise)\s(?:${REF}\s)?by\s+${NUM}`, 'giud'), op: '+' },
  { pattern: new RegExp(String.raw`${NUM}\s+more\b`, 'giud'), op: '+' },
  { pattern: new RegExp(String.raw`\b(?:subtract|minus|deduct|take away|take off|remove)\s+${NUM}`, 'giud'), op: '-' },
  { pattern: new RegExp(String.raw`\b(?:decrease|reduce|lower|cut)\s(?:${REF}\s)?by\s+${NUM}`, 'giud'), op: '-' },
  { pattern: new RegExp(String.raw`${NUM}\s+(?:less|off)\b`, 'giud'), op: '-' },
  { pattern: new RegExp(String.raw`\bmultipl(?:y|ied)\s(?:${REF}\s)?by\s+${NUM}`, 'giud'), op: '*' },
  { pattern: new RegExp(String.raw`\btimes\s+${NUM}`, 'giud'), op: '*' },
  { pattern: new RegExp(String.raw`${NUM}\s+times\s${REF}\b`, 'giud'), op: '*' },
  { pattern: new RegExp(String.raw`${NUM}\s+of\s${REF}\b`, 'giud'), op: '*', percentOnly: true },
  { pattern: new RegExp(String.raw`\bdivided?\s(?:${REF}\s)?(?:by|into)\s+${NUM}`, 'giud'), op: '/' },
  { pattern: new RegExp(String.raw`\bsplit\s(?:${REF}\s)?(?:into|among|between|by)\s+${NUM}`, 'giud'), op: '/' },
  { pattern: new RegExp(String.raw`\bto the power(?: of)?\s+${NUM}`, 'giud'), op: '^' },
  { pattern: new RegExp(String.raw`(?:加上|增加|加)\s*${NUM}`, 'gud'), op: '+' },
  { pattern: new RegExp(String.raw`(?:减去|减掉|减少|扣掉|扣除|去掉|减)\s*${NUM}`, 'gud'), op: '-' },
  { pattern: new RegExp(String.raw`(?:乘以|乘上|乘)\s*${NUM}`, 'gud'), op: '*' },
  { pattern: new RegExp(String.raw`${NUM}\s*倍`, 'gud'), op: '*' },
  { pattern: new RegExp(String.raw`的\s*${NUM}`, 'gud'), op: '*', percentOnly: true },
  { pattern: new RegExp(String.raw`打\s*${NUM}\s*折`, 'gud'), op: '*', tenths: true },
  { pattern: new RegExp(String.raw`除以\s*${NUM}`, 'gud'), op: '/' },
  { pattern: new RegExp(String.raw`(?:平均分成|平分成|分成)\s*${NUM}\s*份`, 'gud'), op: '/' },
  { pattern: new RegExp(String.raw`的\s*${NUM}\s*次方`, 'gud'), op: '^' },
];

/** Words that apply an operation whose operand is implied: "double it", "half of that", 一半, 翻倍. */
const IMPLIED_OPERAND: ReadonlyArray<{ pattern: RegExp; op: Op; operand: number }> = [
  { pattern: /\bsquare root\b|平方根|开平方|开方/giu, op: '^', operand: 0.5 },
  { pattern: /\bhalf\b|\bhalve[ds]?\b|一半|对半/giu, op: '/', operand: 2 },
  { pattern: /\bdouble[ds]?\b|\btwice\b|翻倍|加倍|翻一番/giu, op: '*', operand: 2 },
  { pattern: /\btriple[ds]?\b|\bthrice\b/giu, op: '*', operand: 3 },
  { pattern: /\ba quarter\b/giu, op: '/', operand: 4 },
  { pattern: /\bsquare(?:d|s)?\b(?!\s?root)|(?<!开)平方(?!根)/giu, op: '^', operand: 2 },
];

const OPERATOR_SYMBOLS: Readonly<Record<string, Op>> = { '+': '+', '-': '-', '−': '-', '*': '*', '×': '*', x: '*', '/': '/', '÷': '/', '^': '^' };
/** A message that is an operator and a number: "+ 10", "x3", "÷ 4". */
const SYMBOL_AND_NUMBER = new RegExp(String.raw`^\s?(?:and |then |now )?(?<s>[+\-−*×x/÷^])\s?${NUM}\s?[?.!？。！]*\s?$`, 'iud');

/** Chinese numerals right after an operator word are the operand: 乘以三 → 乘以3 (the shared normaliser only reads them before a measure word). */
const CHINESE_OPERAND = /(加上|增加|加|减去|减掉|减少|减|乘以|乘|除以)([零〇一二两三四五六七八九十百千万]+)/gu;

/** More operations than anyone says in one message: such a text is not read as operations (it would be thousands of tool calls). */
const MAX_OPERATIONS = 8;

/** The operations a message asks to apply to the previous answer, in the order written. */
export interface AnswerOperations {
  operations: AnswerOperation[];
  /** Numbers in the message that no operation took ("half of 80"): then it is not about the previous answer. */
  unclaimed: number;
}

interface Found {
  at: number;
  operation: AnswerOperation;
}

function withOperands(text: string, starts: readonly number[], claimed: Set<number>): Found[] {
  const found: Found[] = [];
  const quantityAt = new Map(starts.map((start, index) => [start, index]));
  const claim = (numberAt: number, at: number, op: Op, value: number, percent: boolean): void => {
    // The quantity the number belongs to (a minus sign may start it one character earlier).
    const index = quantityAt.get(numberAt) ?? quantityAt.get(numberAt - 1);
    if (index === undefined || claimed.has(index)) return;
    claimed.add(index);
    found.push({ at, operation: { op, operand: value, percent, written: true } });
  };
  const symbol = SYMBOL_AND_NUMBER.exec(text);
  if (symbol?.groups?.s && symbol.groups.n && symbol.indices?.groups?.n) {
    const op = OPERATOR_SYMBOLS[symbol.groups.s.toLowerCase()];
    if (op) claim(symbol.indices.groups.n[0], symbol.index, op, Number(symbol.groups.n), symbol.groups.p !== undefined);
  }
  for (const { pattern, op, percentOnly, tenths } of WITH_OPERAND) {
    for (const match of text.matchAll(pattern)) {
      const digits = match.groups?.n;
      const numberAt = match.indices?.groups?.n?.[0];
      if (digits === undefined || numberAt === undefined) continue;
      const percent = match.groups?.p !== undefined;
      if (percentOnly && !percent) continue;
      // 打8折 is 80%, 打8.5折 is 85%.
      if (tenths) claim(numberAt, match.index ?? 0, op, Number(digits) * 10, true);
      else claim(numberAt, match.index ?? 0, op, Number(digits), percent);
    }
  }
  return found;
}

function withImpliedOperands(text: string): Found[] {
  const found: Found[] = [];
  for (const { pattern, op, operand } of IMPLIED_OPERAND) {
    for (const match of text.matchAll(pattern)) found.push({ at: match.index ?? 0, operation: { op, operand, percent: false, written: false } });
  }
  return found;
}

/**
 * Read a message as operations on the previous answer: "Add 10 to that.", "Now subtract 5",
 * "Double it", "再除以 4", "它的一半是多少？". Undefined when it names none.
 */
export function readAnswerOperations(message: string): AnswerOperations | undefined {
  const text = normaliseProblemText(message).replace(CHINESE_OPERAND, (whole, word: string, numeral: string) => {
    const value = chineseNumeralValue(numeral);
    return value === undefined ? whole : `${word}${value}`;
  });
  const starts = findQuantities(text).map((quantity) => quantity.start);
  const claimed = new Set<number>();
  const found = [...withOperands(text, starts, claimed), ...withImpliedOperands(text)].sort((a, b) => a.at - b.at);
  if (found.length === 0 || found.length > MAX_OPERATIONS) return undefined;
  return { operations: found.map((f) => f.operation), unclaimed: starts.length - claimed.size };
}
