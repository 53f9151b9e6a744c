import { formatNumber } from '../../tools/number-format.js';
import { formatCount, formatMoney, singular } from './answer-format.js';
import { say, type Lang } from './language.js';
import { calculatorStep, type Outcome, type SolvePlan } from './plan.js';
import { mentions, plainPair, type ProblemFacts } from './problem-facts.js';
import type { Quantity } from './quantities.js';

const SHARING_CUES = ['shared', 'share', 'split', 'divided equally', 'divided among', 'divided between', 'equally', 'among', 'each get', 'each gets', 'each receive', 'per person', 'how many each', '平均分', '分给', '分成', '平均每', '每人', '每份', '每组', '每个人', '每个小朋友', '每位'];
const TOTAL_QUESTION = ['how many', 'how much', 'total', 'in all', 'altogether', 'cost', '一共', '总共', '共', '多少', '几'];

function noRate(lang: Lang): string {
  return say(lang, 'I have no number to report.', '我没有得到可以报告的数字。');
}

/** "24 apples shared equally among 6 children", "24个苹果平均分给6个小朋友，每人分几个？" */
function sharing(facts: ProblemFacts, [a, b]: [Quantity, Quantity]): SolvePlan | undefined {
  // The total is the larger number: it is shared among the smaller one.
  const [total, parts] = a.value >= b.value ? [a, b] : [b, a];
  const { lang } = facts;
  const t = formatNumber(total.value);
  const p = formatNumber(parts.value);
  const perPerson = facts.text.includes('每人') ? '每人' : '每份';
  return {
    kind: 'solve',
    lang,
    thought: say(
      lang,
      `${formatCount(lang, total.value, total)} are shared equally among ${formatCount(lang, parts.value, parts)}. Each share is the total divided by the number of shares: ${t} ÷ ${p}.`,
      `${formatCount(lang, total.value, total)}平均分给${formatCount(lang, parts.value, parts)}。每份 = 总数 ÷ 份数，即 ${t} ÷ ${p}。`,
    ),
    approach: say(lang, 'One division does it.', '一次除法就够了。'),
    steps: [calculatorStep(`${t} / ${p}`)],
    answer: (outcome: Outcome) =>
      outcome.value === undefined
        ? noRate(lang)
        : say(lang, `Each share is ${formatCount(lang, outcome.value, total)}.`, `${perPerson}${formatCount(lang, outcome.value, total)}。`),
  };
}

/** "Each box holds 12 pencils; 5 boxes?", "苹果每斤5元，买3斤要多少钱？", "A ticket costs $12. How much do 5 tickets cost?" */
function repeated(facts: ProblemFacts, rate: Quantity, count: Quantity): SolvePlan {
  const { lang } = facts;
  const r = formatNumber(rate.value);
  const c = formatNumber(count.value);
  const each = rate.currency ? formatMoney(lang, rate.value, rate.currency) : formatCount(lang, rate.value, rate);
  const countNoun = count.noun === undefined ? count.measure : singular(count.noun);
  const per = rate.per?.unit
    ? lang === 'zh' ? rate.per.unit.names.zh : rate.per.unit.names.en[0]
    : rate.per?.noun || countNoun || say(lang, 'item', '份');
  const countText = count.unit ? `${c} ${lang === 'zh' ? count.unit.names.zh : count.unit.names.en[1]}` : formatCount(lang, count.value, count);
  const total = (value: number) => (rate.currency ? formatMoney(lang, value, rate.currency) : formatCount(lang, value, rate));
  return {
    kind: 'solve',
    lang,
    thought: say(
      lang,
      `There are ${each} per ${per}, and ${countText}. The total is the amount per ${per} times the count: ${r} × ${c}.`,
      `每${per}${each}，一共${countText.replace(' ', '')}。总数 = 每${per}的数量 × 个数，即 ${r} × ${c}。`,
    ),
    approach: say(lang, 'One multiplication does it.', '一次乘法就够了。'),
    steps: [calculatorStep(`${r} * ${c}`)],
    answer: (outcome: Outcome) =>
      outcome.value === undefined
        ? noRate(lang)
        : rate.currency
          ? say(lang, `The total cost is ${total(outcome.value)}.`, `一共需要${total(outcome.value)}。`)
          : say(lang, `That makes ${total(outcome.value)} in total.`, `一共是${total(outcome.value)}。`),
  };
}

/** Equal shares (division) and repeated amounts (multiplication). */
export function recognizePerEach(facts: ProblemFacts): SolvePlan | undefined {
  const pair = plainPair(facts);
  if (!pair) return undefined;
  const [a, b] = pair;
  if (mentions(facts, SHARING_CUES) && !a.per && !b.per && !a.currency && !b.currency) return sharing(facts, pair);
  if (!mentions(facts, TOTAL_QUESTION)) return undefined;
  if (a.per && !b.per) return repeated(facts, a, b);
  if (b.per && !a.per) return repeated(facts, b, a);
  // "A ticket costs $12. How much do 5 tickets cost?": a price and a count of things (not "spent 7").
  const counts = (q: Quantity) => !q.currency && !q.unit && (q.noun !== undefined || q.measure !== undefined);
  if (a.currency && counts(b)) return repeated(facts, a, b);
  if (b.currency && counts(a)) return repeated(facts, b, a);
  return undefined;
}
