import { formatNumber } from '../../tools/number-format.js';
import { answerNumber, formatMoney } from './answer-format.js';
import { listWords, say, type Lang } from './language.js';
import type { PlanStep, SolvePlan } from './plan.js';
import { mentions, type ProblemFacts } from './problem-facts.js';
import type { Quantity } from './quantities.js';

const DISCOUNT_WORDS = ['off', 'discount', 'discounted', 'sale', 'cheaper', 'reduced', 'reduction', 'markdown', '降价', '便宜', '优惠', '减价', '打折', '折扣', '降低'];
const INCREASE_WORDS = ['increase', 'increased', 'raise', 'raised', 'more expensive', 'tax', 'tip', 'markup', 'surcharge', 'vat', '涨价', '上涨', '涨了', '增加', '提高', '加价', '税', '小费'];
const PRICE_WORDS = /(?:costs?|price[sd]?|priced at|sells? for|was|is|原价|售价|价格|标价|卖|定价)\s*[$€£¥]?\s*$/iu;

/** More price changes than anyone writes in one problem: such a text is not read as a chain of discounts (each would be a tool call). */
const MAX_CHANGES = 6;

/** How the price changes: a percentage off or on, or a Chinese 折 (打8折 = pay 80%). */
type Change = { kind: 'off' | 'on'; percent: number } | { kind: 'zhe'; percent: number; written: string };

function findChanges(facts: ProblemFacts): Change[] {
  const zhe = [...facts.text.matchAll(/(?<![\d.])(\d+(?:\.\d+)?)\s*折/gu)].map((match): Change => {
    const n = Number(match[1]);
    // 8折 = 80%, 75折 = 75%, 7.5折 = 75%.
    return { kind: 'zhe', percent: n < 10 ? n * 10 : n, written: `${match[1]}折` };
  });
  if (zhe.length > 0) return zhe;
  const off = mentions(facts, DISCOUNT_WORDS);
  const on = mentions(facts, INCREASE_WORDS);
  if (off === on) return [];
  return facts.quantities.filter((q) => q.percent).map((q) => ({ kind: off ? 'off' : 'on', percent: q.value }));
}

function findPrice(facts: ProblemFacts): Quantity | undefined {
  const candidates = facts.quantities.filter((q) => !q.percent && !/^\s*折/u.test(facts.text.slice(q.end)));
  return (
    candidates.find((q) => q.currency) ??
    candidates.find((q) => PRICE_WORDS.test(facts.text.slice(Math.max(0, q.start - 12), q.start))) ??
    (candidates.length === 1 ? candidates[0] : undefined)
  );
}

function changeExpression(base: string, change: Change): string {
  switch (change.kind) {
    case 'off':
      return `${base} - ${formatNumber(change.percent)}%`;
    case 'on':
      return `${base} + ${formatNumber(change.percent)}%`;
    case 'zhe':
      return `${base} * ${formatNumber(change.percent)}%`;
  }
}

function describeChange(lang: Lang, change: Change): string {
  const p = formatNumber(change.percent);
  switch (change.kind) {
    case 'off':
      return say(lang, `${p}% off`, `便宜${p}%`);
    case 'on':
      return say(lang, `${p}% added`, `加${p}%`);
    case 'zhe':
      return say(lang, `${change.written} (pay ${p}%)`, `${change.written}（按原价的${p}%付）`);
  }
}

/** "A shirt costs $40 and is 25% off", "原价40元，打八折", "$50 plus 8% tax", "20% off, then another 10% off". */
export function recognizeDiscount(facts: ProblemFacts): SolvePlan | undefined {
  const changes = findChanges(facts);
  const price = findPrice(facts);
  if (changes.length === 0 || changes.length > MAX_CHANGES || !price) return undefined;
  const { lang } = facts;
  const money = (value: number) => (price.currency ? formatMoney(lang, value, price.currency) : answerNumber(value).text);
  const described = listWords(lang, changes.map((change) => describeChange(lang, change)));
  const steps: PlanStep[] = changes.map((change, i) => ({
    call: (previous) => {
      const base = i === 0 || previous?.value === undefined ? formatNumber(price.value) : formatNumber(previous.value);
      return { tool: 'calculator', input: { expression: changeExpression(base, change) } };
    },
    preview: say(lang, `Then I'll apply ${describeChange(lang, change)} to that result.`, `然后在这个结果上再${describeChange(lang, change)}。`),
  }));
  const first = changes[0] as Change;
  const firstExpression = changeExpression(formatNumber(price.value), first).replace('*', '×').replace(' - ', ' − ');
  const rule =
    first.kind === 'zhe'
      ? ''
      : say(lang, ` (the calculator reads a percentage after ${first.kind === 'off' ? '−' : '+'} as a share of what comes before it)`, '（计算器把加减号后面的百分数当作前面数值的百分比）');
  return {
    kind: 'solve',
    lang,
    thought: say(
      lang,
      `The price is ${money(price.value)} with ${described}. So the first step is ${firstExpression}${rule}.`,
      `价格是${money(price.value)}，${described}。所以先算 ${firstExpression}${rule}。`,
    ),
    approach: say(lang, 'One calculation per price change.', '每次价格变化算一步。'),
    steps,
    answer: (outcome) => {
      if (outcome.value === undefined) return say(lang, 'I have no price to report.', '我没有得到价格。');
      if (!outcome.asPlanned) return say(lang, `The price is ${money(outcome.value)}.`, `价格是${money(outcome.value)}。`);
      return first.kind === 'on'
        ? say(lang, `With ${described}, the total is ${money(outcome.value)}.`, `${described}后，一共是${money(outcome.value)}。`)
        : say(lang, `After ${described}, the price is ${money(outcome.value)}.`, `${described}后，价格是${money(outcome.value)}。`);
    },
  };
}
