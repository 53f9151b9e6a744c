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

/** Arithmetic words a Chinese numeral may stand next to: 三加五, 一百减去三十七, 三乘以八. */
const CHINESE_OPERATOR_WORDS = ['加上', '减去', '乘以', '除以', '加', '减', '乘', '除', '等于'];
// No whitespace between them: a lookbehind over a run of spaces would rescan it from every position.
const CHINESE_NUMERAL_BY_OPERATOR = new RegExp(
  `(?<![\\d.${NUMERALS}])[${NUMERALS}]+(?=${CHINESE_OPERATOR_WORDS.join('|')})|(?<=${CHINESE_OPERATOR_WORDS.join('|')})[${NUMERALS}]+`,
  'gu',
);

/**
 * Chinese numerals before a measure word or unit become digits: 三个 → 3个, 两小时 → 2小时,
 * 打八折 → 打8折. A lone 一 stays (一共, 一件衬衫 are words, not counts worth computing with).
 */
function chineseNumeralsToDigits(text: string): string {
  const counted = text.replace(CHINESE_NUMERAL_RUN, (run) => {
    if (run === '一' || LONE_MULTIPLIERS.has(run)) return run;
    const value = chineseNumeralValue(run);
    return value === undefined ? run : String(value);
  });
  // Next to 加, 减去, 乘以 … a numeral is an operand, a lone 一 too (一加一).
  return counted.replace(CHINESE_NUMERAL_BY_OPERATOR, (run) => {
    const value = chineseNumeralValue(run);
    return value === undefined ? run : String(value);
  });
}

const ENGLISH_VALUES: Readonly<Record<string, number>> = {
  zero: 0, one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10,
  eleven: 11, twelve: 12, thirteen: 13, fourteen: 14, fifteen: 15, sixteen: 16, seventeen: 17, eighteen: 18, nineteen: 19,
  twenty: 20, thirty: 30, forty: 40, fifty: 50, sixty: 60, seventy: 70, eighty: 80, ninety: 90,
};
const ENGLISH_SCALES: Readonly<Record<string, number>> = { dozen: 12, hundred: 100, thousand: 1_000, million: 1_000_000 };
const ENGLISH_NUMBER_WORD = [...Object.keys(ENGLISH_VALUES), ...Object.keys(ENGLISH_SCALES)].join('|');
/** A run of number words: "ten", "twenty-five", "a hundred and twelve", "two dozen", "3 thousand" is left to digits. */
const ENGLISH_NUMBER_RUN = new RegExp(`\\b(?:an?\\s+(?=(?:${Object.keys(ENGLISH_SCALES).join('|')})\\b))?(?:${ENGLISH_NUMBER_WORD})(?:(?:\\s+and\\s+|\\s+|-)(?:${ENGLISH_NUMBER_WORD}))*\\b`, 'giu');

/**
 * The value of a run of English number words ("twenty-five", "a hundred and twelve", "two dozen"),
 * or undefined when the words do not make one number ("five six", "hundred hundred").
 */
export function englishNumberValue(run: string): number | undefined {
  const words = run.toLowerCase().split(/[\s-]+/u).filter((word) => word !== 'a' && word !== 'an');
  let total = 0;
  let current: number | undefined;
  /** What the last word was, to refuse sequences that are not one number. */
  let last: 'unit' | 'tens' | 'hundred' | 'scale' | 'and' | undefined;
  for (const word of words) {
    const value = ENGLISH_VALUES[word];
    const scale = ENGLISH_SCALES[word];
    if (word === 'and') {
      if (last !== 'hundred' && last !== 'scale') return undefined;
      last = 'and';
    } else if (value !== undefined) {
      // After a unit or a teen nothing but a scale may follow; after a tens word, one unit (twenty five).
      if (last === 'unit' || (last === 'tens' && (value >= 10 || (current ?? 0) % 10 !== 0))) return undefined;
      current = (current ?? 0) + value;
      last = value >= 20 && value % 10 === 0 ? 'tens' : 'unit';
    } else if (scale === 100) {
      if (last === 'hundred' || (current ?? 1) >= 100) return undefined;
      current = (current ?? 1) * 100;
      last = 'hundred';
    } else if (scale === 12) {
      current = (current ?? 1) * 12;
      last = 'unit';
    } else if (scale !== undefined) {
      if (last === 'scale' || last === 'and') return undefined;
      total += (current ?? 1) * scale;
      current = undefined;
      last = 'scale';
    } else {
      return undefined;
    }
  }
  return last === 'and' ? undefined : total + (current ?? 0);
}

/** Words around a lone "one" that make it a count or an operand: "has one apple", "one plus one". */
const ONE_COUNTED_AFTER = /\b(?:plus|minus|times|by|from|add|subtract|has|have|had|buys?|bought|gets?|got|eats?|ate|gives?|gave|sells?|sold|takes?|took|finds?|found|with|is|are|equals?)\s+$/iu;
const ONE_COUNTED_BEFORE = /^\s+(?:plus|minus|times|multiplied|divided|over|more|less|fewer)\b|^\s*[+\-*/×÷]/iu;

/**
 * English number words become digits: "ten plus five" → "10 plus 5", "a dozen eggs" → "12 eggs".
 * A lone "one" only where it counts or is an operand ("has one apple", "one plus one"): "which
 * one" and "one of them" are words, not counts worth computing with.
 */
function englishNumbersToDigits(text: string): string {
  return text.replace(ENGLISH_NUMBER_RUN, (run, offset: number) => {
    if (/^one$/iu.test(run) && !ONE_COUNTED_AFTER.test(text.slice(Math.max(0, offset - 20), offset)) && !ONE_COUNTED_BEFORE.test(text.slice(offset + run.length, offset + run.length + 20))) {
      return run;
    }
    const value = englishNumberValue(run);
    return value === undefined ? run : String(value);
  });
}

/**
 * "One box holds 12 …" and "一个盒子有12个…" state a rate per box, as "each box" and "每个盒子" do:
 * at the start of a clause, before a container's contents, they are read as "each" / "每".
 */
const ONE_AS_EACH_EN = /(^|[.!?;:]\s*|,\s*)one(\s+\w+\s+(?:holds|has|contains|carries|fits|takes)\s+\d)/giu;
const ONE_AS_EACH_ZH = /(^|[，。；！？：,.;!?:]\s*)一(?=[个只本支件条张块颗位辆台箱盒袋瓶杯碗包双套份组把根片排层][^，。；！？,.;!?\d]{1,6}?(?:有|装|装了|放|放了|能装|可以装)\d)/gu;

function oneAsEach(text: string): string {
  const each = (match: string, start: string, rest: string) => `${start}${match[start.length] === 'O' ? 'Each' : 'each'}${rest}`;
  return text.replace(ONE_AS_EACH_EN, each).replace(ONE_AS_EACH_ZH, '$1每');
}

/**
 * The task text in a form the analyser can read: full-width digits and letters as ASCII,
 * Chinese numerals, English number words and 百分之N as digits, "percent" as %, halves as decimals, and no thousands
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
  out = englishNumbersToDigits(out);
  out = oneAsEach(out);
  out = out
    .replace(/(\d)\s*(?:percent|per cent|pct)\b/giu, '$1%')
    .replace(/(?<!\d)(\d+)个半(小时|钟头)/gu, (_, n: string, unit: string) => `${n}.5${unit}`)
    .replace(/半(小时|个小时|个钟头)/gu, '0.5小时')
    .replace(/\bhalf an hour\b/giu, '0.5 hours')
    .replace(/(?<![\d.])(\d+) and a half\b/giu, '$1.5')
    .replace(/\ban hour and a half\b/giu, '1.5 hours');
  // "1,250,000" → "1250000"; a comma before anything but exactly three digits is punctuation.
  // One pass: whether a comma groups digits depends only on its neighbours, never on another comma's removal.
  return out.replace(/(?<=\d),(?=\d{3}(?!\d))/gu, '');
}
