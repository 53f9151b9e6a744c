import { formatNumber } from '../../tools/number-format.js';
import { findUnit } from '../../tools/units.js';
import type { Lang } from './language.js';

/** Decimals an answer sentence shows; the observation above it keeps full precision. */
const ANSWER_DECIMALS = 2;

/** A value for a sentence: 72, 0.33 (from 0.333333333333), with whether it was rounded. */
export function answerNumber(value: number): { text: string; rounded: boolean } {
  const exact = formatNumber(value);
  const decimals = exact.split('.')[1]?.length ?? 0;
  if (decimals <= 3 || exact.includes('e')) return { text: exact, rounded: false };
  const shown = Number(value.toFixed(ANSWER_DECIMALS));
  // 74.9999999999 (75 km/h back from 20.8333333333 m/s) is 75: the difference is the tools' precision, not an amount worth "about".
  return { text: formatNumber(shown), rounded: Math.abs(shown - value) > 1e-9 * Math.max(1, Math.abs(value)) };
}

function approx(lang: Lang, rounded: boolean): string {
  if (!rounded) return '';
  return lang === 'zh' ? '约' : 'about ';
}

/** Money as written: $30, $29.50, 30元, ¥12. */
export function formatMoney(lang: Lang, value: number, currency: string): string {
  const amount = Number.isInteger(value) ? String(value) : value.toFixed(2);
  if (currency === '元') return `${amount}元`;
  return value < 0 ? `-${currency}${amount.slice(1)}` : `${currency}${amount}`;
}

const SPEED_IN_CHINESE: Readonly<Record<string, [string, string]>> = {
  'km/h': ['每小时', '公里'],
  'm/s': ['每秒', '米'],
  mph: ['每小时', '英里'],
};

/** A value with a unit symbol in words: "210 minutes", "72 km/h", "3.5小时", "每小时72公里". */
export function formatWithUnit(lang: Lang, value: number, symbol: string | undefined): string {
  const { text, rounded } = answerNumber(value);
  const unit = symbol === undefined ? undefined : findUnit(symbol);
  const prefix = approx(lang, rounded);
  if (symbol === undefined) return `${prefix}${text}`;
  if (!unit) return lang === 'zh' ? `${prefix}${text}${symbol}` : `${prefix}${text} ${symbol}`;
  if (lang === 'zh') {
    const speed = SPEED_IN_CHINESE[unit.symbol];
    return speed ? `${prefix}${speed[0]}${text}${speed[1]}（${text} ${unit.symbol}）` : `${prefix}${text}${unit.names.zh}`;
  }
  if (unit.dimension === 'speed' || unit.dimension === 'temperature') return `${prefix}${text} ${unit.symbol}`;
  const [singular, plural] = unit.names.en;
  return `${prefix}${text} ${value === 1 ? singular : plural}`;
}

/** An English plural noun in the singular: boxes → box, apples → apple, glasses → glass, people → person. */
export function singular(noun: string): string {
  // The one irregular plural a recipe or a group count meets often: "the amount for one person", not "one people".
  if (noun === 'people') return 'person';
  if (/(?:x|ch|sh|ss)es$/u.test(noun)) return noun.slice(0, -2);
  if (/[^s]s$/u.test(noun)) return noun.slice(0, -1);
  return noun;
}

/** A count with what is counted: "14 apples", "14个苹果", "1 apple". */
export function formatCount(lang: Lang, value: number, counted: { noun?: string; measure?: string }): string {
  const { text, rounded } = answerNumber(value);
  const prefix = approx(lang, rounded);
  if (lang === 'zh') return `${prefix}${text}${counted.measure ?? ''}${counted.noun ?? ''}`;
  if (!counted.noun) return `${prefix}${text}`;
  const noun = value === 1 ? singular(counted.noun) : counted.noun;
  return `${prefix}${text} ${noun}`;
}
