import { formatNumber } from '../../tools/number-format.js';
import { formatCount, formatMoney, formatWithUnit, singular } from './answer-format.js';
import { say, type Lang } from './language.js';
import type { Outcome, PlanStep, SolvePlan } from './plan.js';
import { mentions, plainQuantities, type ProblemFacts } from './problem-facts.js';
import type { Quantity } from './quantities.js';
import { answerUnit, conversionTo } from './rate-units.js';
import { findUnit, type UnitDefinition } from '../../tools/units.js';

/** The unit a conversion step converts into. */
function convertedUnit(step: PlanStep): UnitDefinition | undefined {
  const call = step.call({ value: 0 }, []);
  return call.tool === 'unit_converter' ? findUnit(call.input.to) : undefined;
}

const QUESTION_CUES = ['how much', 'how many', 'what amount', '多少', '几'];

/** What a count counts, comparable across its mentions ("4 people" and "10 people", "4个人" and "10个人"). */
function countedAs(quantity: Quantity): string | undefined {
  if (quantity.unit || quantity.currency || quantity.per) return undefined;
  // A bare measure word (吃了3个) says too little: only a named noun makes two counts of the same thing.
  return quantity.noun === undefined ? undefined : `${quantity.measure ?? ''}${singular(quantity.noun.toLowerCase())}`;
}

function amountText(lang: Lang, amount: Quantity, value: number): string {
  if (amount.currency) return formatMoney(lang, value, amount.currency);
  if (amount.unit) return formatWithUnit(lang, value, amount.unit.symbol);
  return formatCount(lang, value, amount);
}

/**
 * "250 g flour for 4 people; how much for 10 people?", "3 pens cost $4.50, what do 7 pens cost?",
 * "4个人需要250克面粉，10个人需要多少克？": scale an amount from one count to another, per one first.
 */
export function recognizeProportion(facts: ProblemFacts): SolvePlan | undefined {
  const numbers = plainQuantities(facts);
  if (numbers.length !== 3 || !mentions(facts, QUESTION_CUES)) return undefined;
  const counts = numbers.filter((q) => countedAs(q) !== undefined);
  const pairs = counts.flatMap((a, i) => counts.slice(i + 1).filter((b) => countedAs(b) === countedAs(a)).map((b) => [a, b] as const));
  const [pair] = pairs;
  if (pairs.length !== 1 || !pair) return undefined;
  const [from, to] = pair;
  const amount = numbers.find((q) => q !== from && q !== to);
  if (!amount) return undefined;
  const { lang } = facts;
  const a = formatNumber(amount.value);
  const f = formatNumber(from.value);
  const t = formatNumber(to.value);
  const what = countedAs(from) ?? '';
  // "10个人需要多少千克？" of an amount in grams: the result is converted into the unit asked for.
  const convert = amount.unit ? conversionTo(facts, amount.unit.dimension, amount.unit, [amount]) : undefined;
  const asked = convert ? convertedUnit(convert) : undefined;
  return {
    kind: 'solve',
    lang,
    thought: say(
      lang,
      `${amountText(lang, amount, amount.value)} is for ${formatCount(lang, from.value, from)}; the question is the amount for ${formatCount(lang, to.value, to)}. The amount grows in proportion: first the amount for one ${what} (${a} ÷ ${f}), then times ${t}.${asked ? ` The question wants it in ${asked.names.en[1]}.` : ''}`,
      `${formatCount(lang, from.value, from)}对应${amountText(lang, amount, amount.value)}，问${formatCount(lang, to.value, to)}需要多少。数量按比例变化：先算每1${what}的量（${a} ÷ ${f}），再乘以${t}。${asked ? `题目要的单位是${asked.names.zh}。` : ''}`,
    ),
    approach: say(lang, 'Two calculations: the amount for one, then for the new count.', '分两步：先算一份的量，再算新的数量。'),
    steps: [
      { call: () => ({ tool: 'calculator', input: { expression: `${a} / ${f}` } }) },
      {
        call: (previous) => ({ tool: 'calculator', input: { expression: `${formatNumber(previous?.value ?? amount.value / from.value)} * ${t}` } }),
        preview: say(lang, `Then I'll multiply that by ${t}.`, `然后再乘以${t}。`),
      },
      ...(convert ? [convert] : []),
    ],
    uses: [to.value],
    ...(amount.unit ? { resultUnit: amount.unit.symbol } : {}),
    answer: (outcome: Outcome) => {
      if (outcome.value === undefined) return say(lang, 'I have no amount to report.', '我没有得到数量。');
      const converted = outcome.call?.tool === 'unit_converter' && amount.unit;
      const result = converted ? formatWithUnit(lang, outcome.value, answerUnit(outcome, amount.unit?.symbol ?? '')) : amountText(lang, amount, outcome.value);
      return outcome.asPlanned
        ? say(lang, `For ${formatCount(lang, to.value, to)} you need ${result}.`, `${formatCount(lang, to.value, to)}需要${result}。`)
        : say(lang, `The amount is ${result}.`, `数量是${result}。`);
    },
  };
}
