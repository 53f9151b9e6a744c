import { formatNumber } from '../../tools/number-format.js';
import { formatMoney } from './answer-format.js';
import type { AnswerOperation, Question } from './follow-up-question.js';
import type { Lang } from './language.js';
import { findQuantities, type Quantity } from './quantities.js';
import { noteReplacements, replaceNumbers } from './revision.js';
import { normaliseProblemText } from './text-normalize.js';

/** One number the user replaced, as the question wrote it and as it is now: "15%" → "25%". */
export interface NumberChange {
  from: string;
  to: string;
}

/**
 * What a message that changes a number of the question comes to:
 * - `changed`: the question with the new number(s);
 * - `ambiguous`: a new number that could replace several of the question's (it names them);
 * - `not-found`: "use 300 instead of 240" where the question has no 240.
 */
export type Substitution =
  | Changed
  | {
      kind: 'ambiguous';
      value: string;
      candidates: string[];
      /** What each candidate counts, where the question says ("apples", "苹果"): an answer may name it so. */
      nouns: Array<string | undefined>;
      choose(index: number): Substitution;
    }
  | { kind: 'not-found'; value: string };

type Changed = { kind: 'changed'; question: Question; changes: NumberChange[] };

/** Words that say a number is meant to replace one of the question's. */
const CUE =
  /\b(?:what if|what about|how about|instead|use|make it|change|if it (?:were|was|is)|try|suppose|assume|actually|rather|with|now (?:for|with|make it|it's|it is))\b|\bfor\s+(?=\d)|如果|要是|假如|假设|改成|改为|换成|换为|改用|代替|替换|用|呢|的话|其实|应该是|不是/iu;

/** A number the question holds: a quantity of its text, or the written operand of one of its operations. */
interface Candidate {
  quantity: Pick<Quantity, 'value' | 'percent' | 'currency' | 'unit' | 'noun' | 'measure'>;
  /** Where it is: the problem text, or the operation at this index. */
  place: 'text' | number;
  /** It stands in the clause that asks the question ("How much for 10 people?"): the count a follow-up "for 25 people" changes. */
  asked?: boolean;
}

/** A clause that asks: its question word, or the question mark that closes it. */
const ASKING = /\b(?:how|what|which)\b|多少|几|[?？]/iu;
const CLAUSE_END = /[,.;!?，。；！？]/u;

/** Whether the number at `start`..`end` stands in a clause that asks the question. */
function inAskingClause(text: string, start: number, end: number): boolean {
  let from = start;
  while (from > 0 && !CLAUSE_END.test(text[from - 1] ?? '')) from--;
  let to = end;
  while (to < text.length && !CLAUSE_END.test(text[to] ?? '')) to++;
  return ASKING.test(text.slice(from, to + 1));
}

/** A number as the user would write it: 25%, $1.50, 2元 (yuan as written, not padded to cents). */
function shown(lang: Lang, quantity: Candidate['quantity'], value = quantity.value): string {
  if (quantity.currency === '元') return `${formatNumber(value)}元`;
  if (quantity.currency) return formatMoney(lang, value, quantity.currency);
  return formatNumber(value) + (quantity.percent ? '%' : '');
}

/** The question's numbers: the written operands of its operations and the quantities of its problem text. */
function candidatesOf(question: Question): Candidate[] {
  const operands = question.operations.flatMap((operation, index) =>
    operation.written ? [{ quantity: { value: operation.operand, percent: operation.percent }, place: index }] : [],
  );
  const text = withoutDates(normaliseProblemText(question.text));
  const quantities = findQuantities(text).map((quantity) => ({ quantity, place: 'text' as const, asked: inAskingClause(text, quantity.start, quantity.end) }));
  return [...operands, ...quantities];
}

/** How well a candidate fits a new number: undefined when it cannot be what the number replaces (a percentage for a price …). */
function fit(value: Quantity, candidate: Candidate['quantity']): number | undefined {
  if (value.percent !== candidate.percent) return undefined;
  if (value.currency && !candidate.currency) return undefined;
  if (value.unit && candidate.unit?.dimension !== value.unit.dimension) return undefined;
  if (value.noun && candidate.noun && value.noun !== candidate.noun) return undefined;
  let score = 0;
  if (value.currency && value.currency === candidate.currency) score += 2;
  if (value.unit && value.unit === candidate.unit) score += 2;
  if ((value.noun && value.noun === candidate.noun) || (value.measure && value.measure === candidate.measure)) score += 2;
  // A bare number best replaces a number without a unit or currency.
  if (!value.currency && !value.unit && !candidate.currency && !candidate.unit) score += 1;
  return score;
}

/** How far apart two numbers are in size: 300 is near 240, far from 4. */
function distance(a: number, b: number): number {
  return Math.abs(Math.log((Math.abs(a) + 1e-9) / (Math.abs(b) + 1e-9)));
}

/** Nearer by this factor than any other candidate, a number is clearly the one meant ("use 300": the 240, not the 4). */
const CLEARLY_NEARER = 3;

/** What a count counts, as one word to compare: "people" and "person", 个人 and 人. */
function counted(noun: string | undefined, measure: string | undefined): string {
  return `${measure ?? ''}${(noun ?? '').toLowerCase().replace(/^people$/u, 'person').replace(/s$/u, '')}`;
}

/**
 * "Now for 25 people" after "250 g flour for 4 people; how much for 10 people?": both counts are
 * people, and the one the question asks about is the one a newcomer changes. `after` is the
 * message's text right after the new number (a measure word may follow a space: 「25 个人」).
 */
function askedCount(value: Quantity, after: string, tied: readonly Candidate[]): Candidate | undefined {
  const asked = tied.filter((candidate) => candidate.asked);
  const [only] = asked;
  if (asked.length !== 1 || !only) return undefined;
  const { noun, measure } = only.quantity;
  if (noun === undefined && measure === undefined) return undefined;
  const same = tied.every((candidate) => counted(candidate.quantity.noun, candidate.quantity.measure) === counted(noun, measure));
  const says = (value.noun !== undefined && counted(value.noun, undefined) === counted(noun, undefined)) || after.replace(/^\s+/u, '').startsWith(`${measure ?? ''}${noun ?? ''}`);
  return same && says ? only : undefined;
}

/** The candidate a new number replaces: the best fit; among equal fits the clearly nearest in size; else all of them, tied. */
function target(value: Quantity, candidates: readonly Candidate[], after = ''): { found: Candidate } | { tied: Candidate[] } | undefined {
  const scored = candidates.flatMap((candidate) => {
    const score = fit(value, candidate.quantity);
    return score === undefined ? [] : [{ candidate, score }];
  });
  if (scored.length === 0) return undefined;
  const best = Math.max(...scored.map((s) => s.score));
  // The same number written twice ("240 … 240") is one candidate: every occurrence changes.
  const seen = new Set<number>();
  const top = scored
    .filter((s) => s.score === best && !seen.has(s.candidate.quantity.value) && seen.add(s.candidate.quantity.value))
    .map((s) => s.candidate)
    .sort((a, b) => distance(value.value, a.quantity.value) - distance(value.value, b.quantity.value));
  const [first, second] = top;
  if (first && (!second || distance(value.value, second.quantity.value) >= CLEARLY_NEARER * distance(value.value, first.quantity.value))) {
    return { found: first };
  }
  const asked = askedCount(value, after, top);
  return asked ? { found: asked } : { tied: top };
}

const DATE = /\d{4}\s?(?:-|\/|年)\s?\d{1,2}\s?(?:-|\/|月)\s?\d{1,2}(?:\s?日)?/gu;

/** The text with its dates blanked: 2024-02-01 is not the numbers 2024, 2 and 1. */
function withoutDates(text: string): string {
  return text.replace(DATE, (date) => ' '.repeat(date.length));
}

/** "What if it were 2024-02-01?": a new date replaces the question's one date. */
function newDate(text: string, question: Question): Substitution | undefined {
  const dates = text.match(DATE) ?? [];
  if (dates.length !== 1 || !dates[0]) return undefined;
  const old = question.text.match(DATE) ?? [];
  const now = dates[0];
  const replaced = (from: string): Changed => ({ kind: 'changed', question: { text: question.text.replace(from, now), operations: question.operations }, changes: [{ from, to: now }] });
  if (old.length > 1) return { kind: 'ambiguous', value: now, candidates: old, nouns: old.map(() => undefined), choose: (index) => replaced(old[index] ?? '') };
  return old.length === 1 && old[0] ? replaced(old[0]) : undefined;
}

/** More new numbers than a message changing a question gives. */
const MAX_NEW_NUMBERS = 4;

/** A four-digit year ("2024 年的价格", "2024 prices") says which numbers, it is not one of them. */
function isYear(quantity: Quantity): boolean {
  return !quantity.percent && !quantity.currency && !quantity.unit && Number.isInteger(quantity.value) && quantity.value >= 1800 && quantity.value <= 2199;
}

/** Nothing but numbers (and punctuation): "300?", "25%". */
function onlyNumbers(text: string, quantities: readonly Quantity[]): boolean {
  let rest = '';
  let at = 0;
  for (const quantity of quantities) {
    rest += text.slice(at, quantity.start);
    at = Math.max(at, quantity.end);
  }
  rest += text.slice(at);
  return !/\p{L}/u.test(rest.replace(/\b(?:and|or|then|ok|okay)\b/giu, ''));
}

/** Apply the replacements to the question: a changed problem text is solved again, changed operands keep the known start. */
function changeQuestion(question: Question, replacements: ReadonlyArray<{ candidate: Candidate; to: number }>): Question {
  const textChanges = new Map<string, string>();
  const operations: AnswerOperation[] = [...question.operations];
  for (const { candidate, to } of replacements) {
    if (candidate.place === 'text') textChanges.set(String(candidate.quantity.value), formatNumber(to));
    else {
      const operation = operations[candidate.place];
      if (operation) operations[candidate.place] = { ...operation, operand: to };
    }
  }
  if (textChanges.size === 0) return { ...question, operations };
  return { text: replaceNumbers(question.text, textChanges), operations, ...(question.unit === undefined ? {} : { unit: question.unit }) };
}

/** "Use 300 instead of 240", "用 300 代替 240", "把240改成300": the user names both numbers. Undefined when the message names no such pair. */
export function readNamedReplacement(lang: Lang, message: string, question: Question): Substitution | undefined {
  // The note patterns read bare numbers: "25% instead of 15%" and "$300 instead of $240" read as 25 / 15 and 300 / 240.
  const pairs = noteReplacements(normaliseProblemText(message).replace(/[%$€£¥￥]/gu, ''));
  if (pairs.size === 0) return undefined;
  const candidates = candidatesOf(question);
  const replacements: Array<{ candidate: Candidate; to: number }> = [];
  for (const [old, now] of pairs) {
    const candidate = candidates.find((c) => c.quantity.value === Number(old));
    if (!candidate) return { kind: 'not-found', value: formatNumber(Number(old)) };
    replacements.push({ candidate, to: Number(now) });
  }
  return {
    kind: 'changed',
    question: changeQuestion(question, replacements),
    changes: replacements.map(({ candidate, to }) => ({ from: shown(lang, candidate.quantity), to: shown(lang, candidate.quantity, to) })),
  };
}

/**
 * Read a message as new numbers for the question: "What if it were 25%?", "如果是 25% 呢？",
 * "改成 300", "用 2024 年的价格：每支笔 2 元". Each new number replaces the question's number of the
 * same sort (a percentage, a price, a length …), the latest operation's operand first. Undefined
 * when the message does not read as such a change.
 */
export function readNewNumbers(lang: Lang, message: string, question: Question): Substitution | undefined {
  const text = normaliseProblemText(message);
  const date = newDate(text, question);
  if (date) return date;
  const quantities = findQuantities(withoutDates(text));
  if (quantities.length === 0 || (!CUE.test(text) && !onlyNumbers(text, quantities))) return undefined;
  const values = quantities.some((q) => !isYear(q)) ? quantities.filter((q) => !isYear(q)) : quantities;
  // A change names a number or two; a text of many numbers is something else.
  if (values.length > MAX_NEW_NUMBERS) return undefined;
  return substitute(lang, question, values, candidatesOf(question), new Map(), text);
}

/**
 * The new numbers put in place of the question's: each replaces its best-fitting candidate, or the
 * one the user picked (`picked`, by the new number's index) where several fit equally well.
 */
function substitute(
  lang: Lang,
  question: Question,
  values: readonly Quantity[],
  candidates: readonly Candidate[],
  picked: ReadonlyMap<number, Candidate>,
  text = '',
): Substitution | undefined {
  const replacements: Array<{ candidate: Candidate; to: number }> = [];
  for (const [index, value] of values.entries()) {
    const chosen = picked.get(index);
    const found = chosen ? { found: chosen } : target(value, candidates, text.slice(value.end, value.end + 8));
    // Two new numbers for the same old one: no reading of the message tells which to use.
    if (!found || ('found' in found && replacements.some((r) => r.candidate === found.found))) return undefined;
    if ('tied' in found) {
      const { tied } = found;
      return {
        kind: 'ambiguous',
        value: shown(lang, value),
        candidates: tied.map((c) => shown(lang, c.quantity)),
        nouns: tied.map((c) => c.quantity.noun),
        // The user says which: the same reading again, with this number's target settled.
        choose: (choice) => {
          const candidate = tied[choice];
          return (candidate && substitute(lang, question, values, candidates, new Map([...picked, [index, candidate]]), text)) ?? { kind: 'not-found', value: shown(lang, value) };
        },
      };
    }
    replacements.push({ candidate: found.found, to: value.value });
  }
  return {
    kind: 'changed',
    question: changeQuestion(question, replacements),
    changes: replacements.map(({ candidate, to }) => ({ from: shown(lang, candidate.quantity), to: shown(lang, candidate.quantity, to) })),
  };
}
