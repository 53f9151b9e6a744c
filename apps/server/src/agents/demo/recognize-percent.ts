import { formatNumber } from '../../tools/number-format.js';
import { answerNumber, formatMoney } from './answer-format.js';
import { say, type Lang } from './language.js';
import { calculatorStep, type Outcome, type SolvePlan } from './plan.js';
import { mentions, plainPair, type ProblemFacts } from './problem-facts.js';
import type { Quantity } from './quantities.js';

/** A value as its quantity was written: money stays money ($36, 36元), anything else a plain number. */
function like(lang: Lang, quantity: Quantity, value: number): string {
  return quantity.currency ? formatMoney(lang, value, quantity.currency) : answerNumber(value).text;
}

function generalAnswer(lang: Lang, outcome: Outcome, shown: (value: number) => string): string {
  if (outcome.value === undefined) return say(lang, 'I have no number to report.', '我没有得到可以报告的数字。');
  return say(lang, `The answer is ${shown(outcome.value)}.`, `答案是${shown(outcome.value)}。`);
}

/** The percentage and its base: "15% of 240" (English), "240的15%" (Chinese). */
function percentOfPair(facts: ProblemFacts): { percent: Quantity; base: Quantity } | undefined {
  const all = facts.quantities;
  for (let i = 0; i < all.length; i++) {
    const percent = all[i];
    if (!percent?.percent) continue;
    const next = all[i + 1];
    if (next && !next.percent && /^\s*of\s[^.?!;,]*$/iu.test(facts.text.slice(percent.end, next.start))) return { percent, base: next };
    const previous = all[i - 1];
    if (previous && !previous.percent && /^[^，。？！,.?!]{0,6}的\s*$/u.test(facts.text.slice(previous.end, percent.start))) {
      return { percent, base: previous };
    }
  }
  return undefined;
}

/** "What is 15% of 240?", "240的15%是多少？" */
export function recognizePercentOf(facts: ProblemFacts): SolvePlan | undefined {
  const pair = percentOfPair(facts);
  if (!pair || facts.quantities.length !== 2) return undefined;
  const { lang } = facts;
  const { percent, base } = pair;
  const p = formatNumber(percent.value);
  const b = formatNumber(base.value);
  return {
    kind: 'solve',
    lang,
    thought: say(
      lang,
      `I need ${p}% of ${like(lang, base, base.value)}. A percentage is a number of hundredths, so this is ${b} × ${p}% (${b} × ${formatNumber(percent.value / 100)}).`,
      `要求${like(lang, base, base.value)}的${p}%。${p}%就是${formatNumber(percent.value / 100)}，所以算 ${b} × ${p}%。`,
    ),
    approach: say(lang, 'One multiplication does it; the calculator reads a percentage as hundredths.', '一次乘法就够了，计算器会把百分数按百分之几来算。'),
    steps: [calculatorStep(`${b} * ${p}%`)],
    answer: (outcome) =>
      outcome.asPlanned && outcome.value !== undefined
        ? say(lang, `${p}% of ${like(lang, base, base.value)} is ${like(lang, base, outcome.value)}.`, `${like(lang, base, base.value)}的${p}%是${like(lang, base, outcome.value)}。`)
        : generalAnswer(lang, outcome, (value) => like(lang, base, value)),
  };
}

/** "30 is what percent of 120?", "30是120的百分之几？" */
export function recognizeWhatPercent(facts: ProblemFacts): SolvePlan | undefined {
  if (!mentions(facts, ['what percent', 'what percentage', '百分之几', '百分之多少', '百分比', '占'])) return undefined;
  const pair = plainPair(facts);
  if (!pair) return undefined;
  const [first, second] = pair;
  // The whole is the number after "of" (English) or before 的 (Chinese); the part is the other one.
  const secondIsWhole = /\bof\s*$/iu.test(facts.text.slice(first.end, second.start)) || /是|占/u.test(facts.text.slice(first.end, second.start));
  const [part, whole] = secondIsWhole ? [first, second] : [second, first];
  const { lang } = facts;
  const a = formatNumber(part.value);
  const b = formatNumber(whole.value);
  return {
    kind: 'solve',
    lang,
    thought: say(
      lang,
      `The question is what share ${a} is of ${b}. As a percentage that is the part divided by the whole, times 100: ${a} / ${b} * 100.`,
      `问的是${a}占${b}的百分之几：用部分除以整体再乘以100，即 ${a} ÷ ${b} × 100。`,
    ),
    approach: say(lang, 'A division and a multiplication by 100.', '一次除法再乘以100。'),
    steps: [calculatorStep(`${a} / ${b} * 100`)],
    answer: (outcome) => {
      if (outcome.value === undefined) return generalAnswer(lang, outcome, String);
      const share = `${answerNumber(outcome.value).text}%`;
      return outcome.asPlanned
        ? say(lang, `${a} is ${share} of ${b}.`, `${a}是${b}的${share}。`)
        : say(lang, `The answer is ${share}.`, `答案是${share}。`);
    },
  };
}
