import { formatNumber } from '../../tools/number-format.js';
import { answerNumber, formatCount, formatMoney } from './answer-format.js';
import { listWords, say, type Lang } from './language.js';
import type { PlanStep, SolvePlan } from './plan.js';
import { mentions, type ProblemFacts } from './problem-facts.js';
import type { Quantity } from './quantities.js';

const DISCOUNT_WORDS = ['off', 'discount', 'discounted', 'sale', 'cheaper', 'reduced', 'reduction', 'markdown', '降价', '便宜', '优惠', '减价', '打折', '折扣', '降低'];
const INCREASE_WORDS = ['increase', 'increased', 'raise', 'raised', 'more expensive', 'tax', 'tip', 'markup', 'surcharge', 'vat', '涨价', '上涨', '涨了', '增加', '提高', '加价', '税', '小费'];
const PRICE_WORDS = /(?:costs?|price[sd]?|priced at|sells? for|was|is|原价|售价|价格|标价|卖|定价)\s*[$€£¥]?\s*$/iu;

/** More price changes than anyone writes in one problem: such a text is not read as a chain of discounts (each would be a tool call). */
const MAX_CHANGES = 6;

/** How the price changes: a percentage off or on, a Chinese 折 (打8折 = pay 80%), or an amount off or on (再减20元). */
type Change =
  | { kind: 'off' | 'on'; percent: number }
  | { kind: 'zhe'; percent: number; written: string; n: number }
  | { kind: 'minus' | 'plus'; amount: Quantity };

/** How far around a percentage its cue word may be ("25% off", "tax is 8%", "打折20%"). */
const CUE_WINDOW = 24;
const AMOUNT_OFF_BEFORE = /(?:减|减去|便宜|优惠|少|minus|less|coupon for|coupon of)\s*[$€£¥]?\s*$/iu;
const AMOUNT_ON_BEFORE = /(?:加|加上|再加|运费|plus|shipping of|fee of)\s*[$€£¥]?\s*$/iu;
const AMOUNT_OFF_AFTER = /^\s*(?:off\b|coupon\b|discount\b)/iu;

/** The cue word nearest to a percentage: is it taken off or added? */
function percentKind(facts: ProblemFacts, percent: Quantity, off: boolean, on: boolean): 'off' | 'on' | undefined {
  if (off !== on) return off ? 'off' : on ? 'on' : undefined;
  const before = facts.lower.slice(Math.max(0, percent.start - CUE_WINDOW), percent.start);
  const after = facts.lower.slice(percent.end, percent.end + CUE_WINDOW);
  const distance = (words: readonly string[]) => {
    let best = Infinity;
    for (const word of words) {
      const b = before.lastIndexOf(word);
      if (b >= 0) best = Math.min(best, before.length - b);
      const a = after.indexOf(word);
      if (a >= 0) best = Math.min(best, a);
    }
    return best;
  };
  const toOff = distance(DISCOUNT_WORDS);
  const toOn = distance(INCREASE_WORDS);
  if (toOff === toOn) return undefined;
  return toOff < toOn ? 'off' : 'on';
}

function amountKind(facts: ProblemFacts, amount: Quantity): 'minus' | 'plus' | undefined {
  const before = facts.text.slice(Math.max(0, amount.start - 12), amount.start);
  const after = facts.text.slice(amount.end, amount.end + 12);
  if (AMOUNT_OFF_BEFORE.test(before) || AMOUNT_OFF_AFTER.test(after) || /^(?:coupon|discount|voucher)s?$/iu.test(amount.noun ?? '')) return 'minus';
  if (AMOUNT_ON_BEFORE.test(before)) return 'plus';
  return undefined;
}

/** Every price change, in the order the text gives them. */
function findChanges(facts: ProblemFacts, price: Quantity | undefined): Array<Change & { at: number }> {
  const changes: Array<Change & { at: number }> = [...facts.text.matchAll(/(?<![\d.])(\d+(?:\.\d+)?)\s*折/gu)].map((match) => {
    const n = Number(match[1]);
    // 8折 = 80%, 75折 = 75%, 7.5折 = 75%.
    return { kind: 'zhe', percent: n < 10 ? n * 10 : n, written: `${match[1]}折`, n, at: match.index ?? 0 };
  });
  const off = mentions(facts, DISCOUNT_WORDS);
  const on = mentions(facts, INCREASE_WORDS);
  for (const quantity of facts.quantities) {
    if (quantity.percent) {
      const kind = percentKind(facts, quantity, off, on);
      if (kind) changes.push({ kind, percent: quantity.value, at: quantity.start });
    } else if (quantity !== price && (quantity.currency || changes.length > 0)) {
      const kind = amountKind(facts, quantity);
      if (kind) changes.push({ kind, amount: quantity, at: quantity.start });
    }
  }
  return changes.sort((a, b) => a.at - b.at);
}

/** A number right before 折 is the rate of a 打N折, never a price or a count. */
function isZheRate(facts: ProblemFacts, quantity: Quantity): boolean {
  return /^\s*折/u.test(facts.text.slice(quantity.end, quantity.end + 8));
}

function findPrice(facts: ProblemFacts): Quantity | undefined {
  const candidates = facts.quantities.filter((q) => !q.percent && !isZheRate(facts, q));
  const byWord = candidates.find((q) => PRICE_WORDS.test(facts.text.slice(Math.max(0, q.start - 12), q.start)));
  return byWord ?? candidates.find((q) => q.currency && !amountKind(facts, q)) ?? (candidates.length === 1 ? candidates[0] : undefined);
}

/**
 * How many items the price is for ("12 pens" at "$1.25 each", 买8支 at 每支2.5元): the one number
 * left over once the price and the price changes are read, when it counts things (a noun or a
 * measure word, or the price is per item). Anything else stays unread, so coverage declines the plan.
 */
function findCount(facts: ProblemFacts, price: Quantity, changes: ReadonlyArray<Change & { at: number }>): Quantity | undefined {
  const amounts = new Set(changes.flatMap((change) => ('amount' in change ? [change.amount] : [])));
  const left = facts.quantities.filter((q) => q !== price && !q.percent && !amounts.has(q) && !isZheRate(facts, q));
  const [count, ...rest] = left;
  if (!count || rest.length > 0 || count.currency || count.unit || count.per || count.value <= 0) return undefined;
  return count.noun !== undefined || count.measure !== undefined || price.per ? count : undefined;
}

/** "12 pens", "8支": the count as the answer names it (a Chinese noun read after 8支 may run into the next words). */
function describeCount(lang: Lang, count: Quantity): string {
  return lang === 'zh' ? `${formatNumber(count.value)}${count.measure ?? ''}` : formatCount(lang, count.value, count);
}

function changeExpression(base: string, change: Change): string {
  switch (change.kind) {
    case 'off':
      return `${base} - ${formatNumber(change.percent)}%`;
    case 'on':
      return `${base} + ${formatNumber(change.percent)}%`;
    case 'zhe':
      return `${base} * ${formatNumber(change.percent)}%`;
    case 'minus':
      return `${base} - ${formatNumber(change.amount.value)}`;
    case 'plus':
      return `${base} + ${formatNumber(change.amount.value)}`;
  }
}

function describeChange(lang: Lang, change: Change, money: (value: number) => string): string {
  if (!('percent' in change)) {
    const amount = money(change.amount.value);
    return change.kind === 'minus' ? say(lang, `${amount} off`, `减${amount}`) : say(lang, `${amount} added`, `加${amount}`);
  }
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

/**
 * "A shirt costs $40 and is 25% off", "原价40元，打八折", "$50 plus 8% tax", "20% off, then another 10% off";
 * with a count, the total comes first: "12 pens at $1.25 each, 15% off" is 12 × 1.25, then 15% off that.
 */
export function recognizeDiscount(facts: ProblemFacts): SolvePlan | undefined {
  const price = findPrice(facts);
  const changes = findChanges(facts, price);
  if (changes.length === 0 || changes.length > MAX_CHANGES || !price) return undefined;
  const { lang } = facts;
  const count = findCount(facts, price, changes);
  const money = (value: number) => (price.currency ? formatMoney(lang, value, price.currency) : answerNumber(value).text);
  const described = listWords(lang, changes.map((change) => describeChange(lang, change, money)));
  const p = formatNumber(price.value);
  const totalCall: PlanStep | undefined = count && { call: () => ({ tool: 'calculator', input: { expression: `${formatNumber(count.value)} * ${p}` } }) };
  // What the first price change applies to when no earlier result is there (coverage reads the calls that way).
  const startingBase = count ? formatNumber(count.value * price.value) : p;
  const changeSteps: PlanStep[] = changes.map((change, i) => ({
    call: (previous) => {
      const base = (i === 0 && !count) || previous?.value === undefined ? startingBase : formatNumber(previous.value);
      return { tool: 'calculator', input: { expression: changeExpression(base, change) } };
    },
    preview: say(lang, `Then I'll apply ${describeChange(lang, change, money)} to that result.`, `然后在这个结果上再${describeChange(lang, change, money)}。`),
  }));
  const first = changes[0] as Change;
  const firstExpression = count
    ? `${formatNumber(count.value)} × ${p}`
    : changeExpression(p, first).replace('*', '×').replace(' - ', ' − ');
  const rule =
    count || (first.kind !== 'off' && first.kind !== 'on')
      ? ''
      : say(lang, ` (the calculator reads a percentage after ${first.kind === 'off' ? '−' : '+'} as a share of what comes before it)`, '（计算器把加减号后面的百分数当作前面数值的百分比）');
  const items = count && describeCount(lang, count);
  const onlyAdded = changes.every((change) => change.kind === 'on' || change.kind === 'plus');
  return {
    kind: 'solve',
    lang,
    thought: count
      ? say(
          lang,
          `${items} at ${money(price.value)} each, with ${described}. The price changes apply to the total, so the first step is the count times the price: ${firstExpression}.`,
          `每${count.measure ?? '份'}${money(price.value)}，买${items}，${described}。价格变化作用在总价上，所以先算数量 × 单价：${firstExpression}。`,
        )
      : say(
          lang,
          `The price is ${money(price.value)} with ${described}. So the first step is ${firstExpression}${rule}.`,
          `价格是${money(price.value)}，${described}。所以先算 ${firstExpression}${rule}。`,
        ),
    approach: count
      ? say(lang, 'One calculation for the total, then one per price change.', '先算总价，再每次价格变化算一步。')
      : say(lang, 'One calculation per price change.', '每次价格变化算一步。'),
    steps: totalCall ? [totalCall, ...changeSteps] : changeSteps,
    uses: changes.flatMap((change) => (change.kind === 'zhe' ? [change.n] : [])),
    answer: (outcome) => {
      if (outcome.value === undefined) return say(lang, 'I have no price to report.', '我没有得到价格。');
      const amount = money(outcome.value);
      if (!outcome.asPlanned) return count ? say(lang, `The total is ${amount}.`, `一共是${amount}。`) : say(lang, `The price is ${amount}.`, `价格是${amount}。`);
      if (count) {
        return onlyAdded
          ? say(lang, `With ${described}, ${items} cost ${amount} in total.`, `${described}后，${items}一共是${amount}。`)
          : say(lang, `After ${described}, ${items} cost ${amount}.`, `${described}后，${items}一共是${amount}。`);
      }
      return onlyAdded
        ? say(lang, `With ${described}, the total is ${amount}.`, `${described}后，一共是${amount}。`)
        : say(lang, `After ${described}, the price is ${amount}.`, `${described}后，价格是${amount}。`);
    },
  };
}
