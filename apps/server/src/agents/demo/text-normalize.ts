/** Chinese punctuation keeps its meaning for clause splitting, so NFKC must not turn "，" into ",". */
const KEPT_AS_IS = new Set(['，', '。', '？', '！', '：', '；', '、', '“', '”']);

const CHINESE_DIGITS: Readonly<Record<string, number>> = {
  零: 0, 〇: 0, 一: 1, 二: 2, 两: 2, 三: 3, 四: 4, 五: 5, 六: 6, 七: 7, 八: 8, 九: 9,
};
const CHINESE_MULTIPLIERS: Readonly<Record<string, number>> = { 十: 10, 百: 100, 千: 1000, 万: 10_000 };

/** The value of a Chinese numeral such as 十五, 二十, 一百零八, 两千; undefined if it is not one. */
export function chineseNumeralValue(text: string): number | undefined {
  // Digits without 十/百/千/万 are read one by one: 七五 → 75, 二〇二四 → 2024.
  if (![...text].some((char) => char in CHINESE_MULTIPLIERS)) {
    const digits = [...text].map((char) => CHINESE_DIGITS[char]);
    return digits.every((d) => d !== undefined) && digits.length > 0 ? Number(digits.join('')) : undefined;
  }
  let total = 0;
  let section = 0;
  let digit: number | undefined;
  for (const char of text) {
    const d = CHINESE_DIGITS[char];
    const multiplier = CHINESE_MULTIPLIERS[char];
    if (d !== undefined) {
      digit = d;
    } else if (multiplier === 10_000) {
      total += (section + (digit ?? 0)) * multiplier;
      section = 0;
      digit = undefined;
    } else if (multiplier !== undefined) {
      // "十五" starts with 十: an implied 1.
      section += (digit ?? 1) * multiplier;
      digit = undefined;
    } else {
      return undefined;
    }
  }
  return total + section + (digit ?? 0);
}

/** Words a number is counted in (measure words and units): only a numeral before one of them is read as a number. */
const COUNTED_BY = [
  ...'个只本支件条张块元颗粒位名头匹辆台棵朵箱盒袋瓶杯碗次天岁页道题把根片双套份组层排斤克米秒周年倍折成人',
  '公里', '千米', '厘米', '毫米', '公斤', '千克', '小时', '分钟', '个月', '星期', '升', '毫升',
];
const NUMERALS = '零〇一二两三四五六七八九十百千万';
/**
 * Only the start of a run of numerals is tried (the lookbehind), so a long run costs one scan:
 * a later start could only end where the run's start already failed to.
 */
const CHINESE_NUMERAL_RUN = new RegExp(`(?<![\\d.${NUMERALS}])[${NUMERALS}]+(?=${COUNTED_BY.join('|')}|%)`, 'gu');
/** 千米, 千克, 百米 are units, not a thousand metres: a lone 百/千/万 before a unit stays a word. */
const LONE_MULTIPLIERS = new Set(['百', '千', '万']);

/**
 * Chinese numerals before a measure word or unit become digits: 三个 → 3个, 两小时 → 2小时,
 * 打八折 → 打8折. A lone 一 stays (一共, 一件衬衫 are words, not counts worth computing with).
 */
function chineseNumeralsToDigits(text: string): string {
  return text.replace(CHINESE_NUMERAL_RUN, (run) => {
    if (run === '一' || LONE_MULTIPLIERS.has(run)) return run;
    const value = chineseNumeralValue(run);
    return value === undefined ? run : String(value);
  });
}

/**
 * The task text in a form the analyser can read: full-width digits and letters as ASCII,
 * Chinese numerals and 百分之N as digits, "percent" as %, halves as decimals, and no thousands
 * separators. Chinese punctuation is kept: it separates clauses.
 */
export function normaliseProblemText(text: string): string {
  let out = '';
  for (const char of text) out += KEPT_AS_IS.has(char) ? char : char.normalize('NFKC');
  out = out.replace(/百分之([零〇一二两三四五六七八九十百千万]+|\d+(?:\.\d+)?)/gu, (_, n: string) => {
    const value = /\d/.test(n) ? n : String(chineseNumeralValue(n) ?? n);
    return `${value}%`;
  });
  out = chineseNumeralsToDigits(out);
  out = out
    .replace(/(\d)\s*(?:percent|per cent|pct)\b/giu, '$1%')
    .replace(/(?<!\d)(\d+)个半(小时|钟头)/gu, (_, n: string, unit: string) => `${n}.5${unit}`)
    .replace(/半(小时|个小时|个钟头)/gu, '0.5小时')
    .replace(/\bhalf an hour\b/giu, '0.5 hours')
    .replace(/\ban hour and a half\b/giu, '1.5 hours');
  // "1,250,000" → "1250000"; a comma before anything but exactly three digits is punctuation.
  // One pass: whether a comma groups digits depends only on its neighbours, never on another comma's removal.
  return out.replace(/(?<=\d),(?=\d{3}(?!\d))/gu, '');
}
