import { ExpressionError } from './expression-error.js';

/** `mod` is the remainder of a division (17 mod 5 = 2), written as a word because `%` is a percentage. */
export type Operator = '+' | '-' | '*' | '/' | '^' | '%' | 'mod';

/** One lexical unit of an expression. `position` is 1-based in the original text. */
export type Token =
  | { type: 'number'; value: number; text: string; position: number }
  | { type: 'operator'; op: Operator; text: string; position: number }
  | { type: 'paren'; paren: '(' | ')'; text: string; position: number };

/**
 * Symbols people paste from documents, phones and Chinese input methods, mapped to ASCII.
 * Every alias is one UTF-16 unit, so positions in the normalised text equal the original ones.
 */
const CHARACTER_ALIASES: Readonly<Record<string, string>> = {
  '×': '*', '✕': '*', '⋅': '*', '·': '*', '∙': '*', '＊': '*',
  '÷': '/', '／': '/', '∕': '/',
  '−': '-', '–': '-', '－': '-', '﹣': '-',
  '＋': '+', '﹢': '+',
  '＾': '^',
  '％': '%', '﹪': '%',
  '（': '(', '）': ')', '［': '(', '］': ')', '[': '(', ']': ')',
  '．': '.',
};

const FULL_WIDTH_ZERO = 0xff10;
const FULL_WIDTH_NINE = 0xff19;

function normaliseCharacter(char: string): string {
  const code = char.charCodeAt(0);
  if (code >= FULL_WIDTH_ZERO && code <= FULL_WIDTH_NINE) return String(code - FULL_WIDTH_ZERO);
  return CHARACTER_ALIASES[char] ?? char;
}

/** The text with full-width digits and Unicode operators replaced by ASCII, position for position. */
export function normaliseExpressionText(text: string): string {
  let out = '';
  for (let i = 0; i < text.length; i++) out += normaliseCharacter(text[i] ?? '');
  return out;
}

const NUMBER_AT = /(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?/y;
const NUMBER_TAIL = /[\d.]+/y;
const OPERATORS = new Set<string>(['+', '-', '*', '/', '^', '%']);

function readNumber(text: string, index: number): Token & { type: 'number' } {
  NUMBER_AT.lastIndex = index;
  const match = NUMBER_AT.exec(text);
  if (!match) throw new ExpressionError(`Unexpected '${text[index] ?? ''}' at position ${index + 1}`, index + 1);
  const numberText = match[0];
  const end = index + numberText.length;
  // "1.2.3" or "1e5.2": report the whole malformed run rather than an odd error at its second dot.
  if (text[end] === '.') {
    NUMBER_TAIL.lastIndex = end;
    const run = numberText + (NUMBER_TAIL.exec(text)?.[0] ?? '');
    throw new ExpressionError(`Malformed number '${run}' at position ${index + 1}`, index + 1);
  }
  const value = Number(numberText);
  if (!Number.isFinite(value)) {
    throw new ExpressionError(`Number too large at position ${index + 1}: '${numberText}' exceeds about 1.8e308`, index + 1);
  }
  return { type: 'number', value, text: numberText, position: index + 1 };
}

function describeCharacter(char: string): string {
  return /\p{L}/u.test(char) ? `Unexpected character '${char}'` : `Unexpected '${char}'`;
}

/** Split an expression into tokens, or throw an `ExpressionError` naming the first bad character. */
export function tokenize(expression: string): Token[] {
  const text = normaliseExpressionText(expression);
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const char = text[i] ?? '';
    if (/\s/u.test(char)) {
      i++;
    } else if (/[\d.]/.test(char)) {
      const token = readNumber(text, i);
      tokens.push(token);
      i += token.text.length;
    } else if (char === '*' && text[i + 1] === '*') {
      tokens.push({ type: 'operator', op: '^', text: '**', position: i + 1 });
      i += 2;
    } else if (OPERATORS.has(char)) {
      tokens.push({ type: 'operator', op: char as Operator, text: char, position: i + 1 });
      i++;
    } else if (text.slice(i, i + 3).toLowerCase() === 'mod' && !/[a-z]/iu.test(text[i + 3] ?? '') && !/[a-z]/iu.test(text[i - 1] ?? '')) {
      tokens.push({ type: 'operator', op: 'mod', text: text.slice(i, i + 3), position: i + 1 });
      i += 3;
    } else if (char === '(' || char === ')') {
      tokens.push({ type: 'paren', paren: char, text: char, position: i + 1 });
      i++;
    } else {
      // Name the whole character, even one outside the BMP (an emoji), not half of it.
      const whole = String.fromCodePoint(text.codePointAt(i) ?? 0xfffd);
      const hint = char === ',' || char === '，' ? ' (write numbers without thousands separators)' : '';
      throw new ExpressionError(`${describeCharacter(whole)} at position ${i + 1}${hint}`, i + 1);
    }
  }
  return tokens;
}
