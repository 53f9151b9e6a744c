import { findUnit, unitSpellings, type UnitDefinition } from '../../tools/units.js';

/** A number found in a problem, with what it measures or counts. */
export interface Quantity {
  value: number;
  /** The digits as written. */
  text: string;
  /** Where the number starts and where its unit or noun ends, in the normalised text. */
  start: number;
  end: number;
  percent: boolean;
  /** `$`, `€`, `£`, `¥` (written before) or `元` (written after). */
  currency?: string;
  unit?: UnitDefinition;
  /** What is counted: "apples", "苹果" (with its measure word, e.g. 个). */
  noun?: string;
  measure?: string;
  /** "60 km per hour", "每小时60公里", "$3 per kg", "each box has 12": the quantity is per one of these. */
  per?: { unit?: UnitDefinition; noun?: string };
}

const NUMBER = /(\$|€|£|¥|￥)?\s?(?<![\d.])(\d+(?:\.\d+)?|\.\d+)/gu;
const CURRENCY_AFTER = /^\s*(元钱|块钱|元|美元|欧元|英镑|dollars?|bucks|yuan|euros?)(?![a-z])/iu;
const MEASURE_WORDS = '个只本支件条张块颗粒位名头匹辆台棵朵箱盒袋瓶杯碗次岁页道题把根片双套份组层排人';
const CHINESE_NOUN = new RegExp(`^([${MEASURE_WORDS}])([\\u4e00-\\u9fff]{0,4})`, 'u');
/** Characters that end a Chinese noun: verbs, particles and question words around counts. */
const NOUN_STOP = /[了的和与还又在吃买给用分每平均有是共多少几要需花卖送剩再第每一个]/u;
const ENGLISH_WORD = /^\s+([a-z]+)/iu;
/** Words after a number that are not what it counts. */
const NOT_NOUNS = new Set([
  'more', 'less', 'fewer', 'of', 'and', 'or', 'in', 'at', 'per', 'each', 'every', 'to', 'for', 'the', 'a', 'an',
  'is', 'are', 'was', 'were', 'from', 'with', 'on', 'by', 'times', 'than', 'then', 'left', 'off', 'percent',
  'altogether', 'total', 'if', 'but', 'so', 'into', 'among', 'between', 'equally', 'away', 'that', 'it', 'he', 'she', 'they',
  'divided', 'plus', 'minus', 'multiplied', 'squared', 'cubed', 'over', 'x', 'as', 'what', 'how', 'all',
]);
/**
 * Unit spellings too ambiguous in running text: "12 in each box" is not inches, "5k" is not
 * kelvin. The converter still accepts them; the analyser only reads them as units when written
 * as the upper-case symbol (C, F, K).
 */
const AMBIGUOUS_IN_PROSE = new Set(['in', 'k', 'd', 't', 'c', 'f']);
/** Longer than any unit spelling: how far past a number to look for its unit. */
const UNIT_WINDOW = 40;
const UPPER_CASE_SYMBOLS = new Set(['C', 'F', 'K']);

const SPELLINGS = unitSpellings().filter(({ spelling }) => !AMBIGUOUS_IN_PROSE.has(spelling));
/** The spellings by their first character (longest first), so a number's unit is looked up among a handful, not all of them. */
const SPELLINGS_BY_FIRST: ReadonlyMap<string, typeof SPELLINGS> = (() => {
  const byFirst = new Map<string, Array<(typeof SPELLINGS)[number]>>();
  for (const entry of SPELLINGS) {
    const first = entry.spelling[0] ?? '';
    byFirst.set(first, [...(byFirst.get(first) ?? []), entry]);
  }
  return byFirst;
})();

/** The unit written at `index` (after optional spaces), longest spelling first. */
export function unitAt(text: string, index: number): { unit: UnitDefinition; end: number } | undefined {
  let at = index;
  while (at < text.length && /\s/u.test(text[at] ?? '')) at++;
  const rest = text.slice(at, at + UNIT_WINDOW).toLowerCase();
  for (const { spelling, unit } of SPELLINGS_BY_FIRST.get(rest[0] ?? '') ?? []) {
    if (!rest.startsWith(spelling)) continue;
    const after = rest[spelling.length] ?? '';
    // A Latin spelling must end at a word boundary ("min" is not the start of "mine").
    if (/[a-z]/u.test(spelling.slice(-1)) && /[a-z]/u.test(after)) continue;
    return { unit, end: at + spelling.length };
  }
  const symbol = text[at] ?? '';
  if (UPPER_CASE_SYMBOLS.has(symbol) && !/[a-z]/iu.test(text[at + 1] ?? '')) {
    const unit = findUnit(symbol);
    if (unit) return { unit, end: at + 1 };
  }
  return undefined;
}

function nounAfter(text: string, index: number): Pick<Quantity, 'noun' | 'measure'> & { end: number } {
  const rest = text.slice(index, index + UNIT_WINDOW);
  const chinese = CHINESE_NOUN.exec(rest);
  if (chinese) {
    const measure = chinese[1] ?? '';
    let noun = chinese[2] ?? '';
    const stop = noun.search(NOUN_STOP);
    if (stop >= 0) noun = noun.slice(0, stop);
    return { measure, ...(noun ? { noun } : {}), end: index + measure.length + noun.length };
  }
  const english = ENGLISH_WORD.exec(rest);
  const word = english?.[1];
  if (word && !NOT_NOUNS.has(word.toLowerCase())) return { noun: word, end: index + (english?.[0].length ?? 0) };
  return { end: index };
}

/** "per hour", "an hour", "each" after a quantity, or 每小时 / "each box has" before it in the same clause. */
function perWhat(text: string, start: number, end: number, previousEnd: number): Quantity['per'] {
  // "12 eggs each", "$3 apiece": per one of whatever the other number counts.
  const following = text.slice(end, end + UNIT_WINDOW);
  if (/^\s*(?:each|apiece|a piece)(?![a-z])/iu.test(following)) return { noun: '' };
  const after = /^\s*(?:(?:per|an?|each|every)\s+|\/\s*)([a-z]+|[\u4e00-\u9fff]+)/iu.exec(following);
  if (after?.[1]) {
    const unit = unitAt(after[1], 0)?.unit;
    return unit ? { unit } : { noun: after[1] };
  }
  // Only words since the previous quantity: "60 km per hour for 3 hours" does not make 3 h a rate.
  const clause = text.slice(previousEnd, start).split(/[,.;!?，。；！？]/u).pop() ?? '';
  const before =
    /(?:^|[^a-z])(?:each|every|per)\s+([a-z]+)/iu.exec(clause) ??
    /每([\u4e00-\u9fff]{1,3}?)(?=[行走跑飞骑有装放卖是要可能需用花价]|$)/u.exec(clause);
  if (before?.[1]) {
    const unit = unitAt(before[1], 0)?.unit;
    return unit ? { unit } : { noun: before[1] };
  }
  return undefined;
}

/** Every number in the (normalised) text, with its unit, currency, percent sign or counted noun. */
export function findQuantities(text: string): Quantity[] {
  const quantities: Quantity[] = [];
  for (const match of text.matchAll(NUMBER)) {
    const digits = match[2] ?? '';
    let start = (match.index ?? 0) + match[0].length - digits.length;
    let end = start + digits.length;
    // "-5 C" is minus five; "12 -3" or "a-5" is not a sign (the dash follows a word or number).
    const negative = !match[1] && /[-−]/u.test(text[start - 1] ?? '') && !/[\w)]/u.test(text[start - 2] ?? '');
    if (negative) start -= 1;
    const quantity: Quantity = { value: negative ? -Number(digits) : Number(digits), text: negative ? `-${digits}` : digits, start, end, percent: false };
    if (match[1]) quantity.currency = match[1] === '￥' ? '¥' : match[1];
    const rest = text.slice(end, end + UNIT_WINDOW);
    const unit = unitAt(text, end);
    const currencyAfter = CURRENCY_AFTER.exec(rest);
    if (/^\s*%/u.test(rest)) {
      quantity.percent = true;
      end += (/^\s*%/u.exec(rest)?.[0].length ?? 0);
    } else if (currencyAfter && !quantity.currency) {
      const word = (currencyAfter[1] ?? '').toLowerCase();
      quantity.currency = /^(dollars?|bucks)$/u.test(word) ? '$' : /^euros?$/u.test(word) ? '€' : '元';
      end += currencyAfter[0].length;
    } else if (unit) {
      quantity.unit = unit.unit;
      end = unit.end;
    }
    if (!quantity.percent) {
      const noun = nounAfter(text, end);
      if (noun.measure) quantity.measure = noun.measure;
      if (noun.noun && !quantity.unit) quantity.noun = noun.noun;
      if (!quantity.unit) end = noun.end;
    }
    quantity.end = end;
    const per = perWhat(text, start, end, quantities[quantities.length - 1]?.end ?? 0);
    if (per) quantity.per = per;
    quantities.push(quantity);
  }
  return quantities;
}

/** A unit named somewhere in the text ("minutes" in "How many minutes are in 3.5 hours?"). */
export interface UnitMention {
  unit: UnitDefinition;
  start: number;
  end: number;
}

/** Every unit named in the text, longest spelling first where two overlap (公里 wins over 米 … in 千米). */
export function findUnitMentions(text: string): UnitMention[] {
  const lower = text.toLowerCase();
  const found: UnitMention[] = [];
  // Which characters a mention already covers: an overlap test costs the spelling's length, not the number of mentions.
  const taken = new Uint8Array(text.length);
  const overlaps = (start: number, end: number) => taken.subarray(start, end).includes(1);
  const take = (mention: UnitMention) => {
    taken.fill(1, mention.start, mention.end);
    found.push(mention);
  };
  for (const { spelling, unit } of SPELLINGS) {
    const latin = /[a-z]/u.test(spelling);
    for (let at = lower.indexOf(spelling); at >= 0; at = lower.indexOf(spelling, at + 1)) {
      const end = at + spelling.length;
      if (latin && (/[a-z]/u.test(lower[at - 1] ?? '') || /[a-z]/u.test(lower[end] ?? ''))) continue;
      if (!overlaps(at, end)) take({ unit, start: at, end });
    }
  }
  for (const match of text.matchAll(/(?<![A-Za-z°])([CFK])(?![A-Za-z])/gu)) {
    const at = match.index ?? 0;
    const unit = findUnit(match[1] ?? '');
    if (unit && !overlaps(at, at + 1)) take({ unit, start: at, end: at + 1 });
  }
  return found.sort((a, b) => a.start - b.start);
}
