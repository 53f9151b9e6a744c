import { formatNumber } from '../../tools/number-format.js';
import { answerNumber } from './answer-format.js';
import { say } from './language.js';
import type { Outcome, SolvePlan } from './plan.js';
import { mentions, plainPair, type ProblemFacts } from './problem-facts.js';

const REMAINDER_CUES = ['remainder', 'left over when', '余数', '余几', '余多少'];
const CHANGE_CUES = ['percentage change', 'percent change', 'by what percent', 'by what percentage', 'what percent did', 'what percentage did', '百分之几', '百分之多少', '变化率', '增长率', '涨幅', '降幅'];
const FROM_TO = /\bfrom\b[^.?!]*\bto\b|从[^。？！]*(?:到|涨到|降到|增加到|减少到|变成)/iu;

/** "What is the remainder when 17 is divided by 5?", "17除以5余数是多少？" */
export function recognizeRemainder(facts: ProblemFacts): SolvePlan | undefined {
  const pair = plainPair(facts);
  if (!pair || !mentions(facts, REMAINDER_CUES)) return undefined;
  const [dividend, divisor] = pair;
  const { lang } = facts;
  const a = formatNumber(dividend.value);
  const b = formatNumber(divisor.value);
  return {
    kind: 'solve',
    lang,
    thought: say(lang, `The question asks for the remainder of ${a} ÷ ${b}, not the quotient: ${a} mod ${b}.`, `问的是${a} ÷ ${b}的余数，不是商：${a} mod ${b}。`),
    approach: say(lang, 'The calculator computes remainders with mod.', '计算器用 mod 求余数。'),
    steps: [{ call: () => ({ tool: 'calculator', input: { expression: `${a} mod ${b}` } }) }],
    answer: (outcome: Outcome) => {
      if (outcome.value === undefined) return say(lang, 'I have no remainder to report.', '我没有得到余数。');
      const r = answerNumber(outcome.value).text;
      return outcome.asPlanned ? say(lang, `The remainder of ${a} ÷ ${b} is ${r}.`, `${a} ÷ ${b}的余数是${r}。`) : say(lang, `The remainder is ${r}.`, `余数是${r}。`);
    },
  };
}

/** "A price went from $80 to $100. What is the percentage change?", "从80元涨到100元，涨了百分之几？" */
export function recognizePercentChange(facts: ProblemFacts): SolvePlan | undefined {
  const pair = plainPair(facts);
  if (!pair || pair[0].value === 0 || !mentions(facts, CHANGE_CUES) || !FROM_TO.test(facts.text)) return undefined;
  const [before, after] = pair;
  const { lang } = facts;
  const o = formatNumber(before.value);
  const n = formatNumber(after.value);
  return {
    kind: 'solve',
    lang,
    thought: say(
      lang,
      `The value changes from ${o} to ${n}. A percentage change is the change divided by the starting value, times 100: first ${n} − ${o}, then that ÷ ${o} × 100.`,
      `数值从${o}变到${n}。变化的百分比 = 变化量 ÷ 原来的值 × 100：先算 ${n} − ${o}，再除以${o}乘以100。`,
    ),
    approach: say(lang, 'Two calculations: the change, then its share of the start.', '分两步：先算变化量，再算它占原值的百分比。'),
    steps: [
      { call: () => ({ tool: 'calculator', input: { expression: `${n} - ${o}` } }) },
      {
        call: (previous) => ({ tool: 'calculator', input: { expression: `${formatNumber(previous?.value ?? after.value - before.value)} / ${o} * 100` } }),
        preview: say(lang, `Then I'll divide the change by ${o} and multiply by 100.`, `然后用变化量除以${o}再乘以100。`),
      },
    ],
    answer: (outcome: Outcome) => {
      if (outcome.value === undefined) return say(lang, 'I have no percentage to report.', '我没有得到百分比。');
      const p = `${answerNumber(Math.abs(outcome.value)).text}%`;
      if (outcome.value === 0) return say(lang, 'There is no change: 0%.', '没有变化：0%。');
      return outcome.value > 0
        ? say(lang, `That is an increase of ${p}.`, `增长了${p}。`)
        : say(lang, `That is a decrease of ${p}.`, `下降了${p}。`);
    },
  };
}
