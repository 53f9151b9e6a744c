import { answerNumber } from './answer-format.js';
import { showExpression } from './expression-finder.js';
import { listWords, say, type Lang } from './language.js';
import type { AdvicePlan, SolvePlan } from './plan.js';
import type { ProblemFacts } from './problem-facts.js';
import type { Quantity } from './quantities.js';
import { describeNumbers } from './recognize-story.js';

/** Said when the agent declines a numeric task: where a real answer comes from (no example numbers, so the answer holds none). */
const DECLINE_NOTE: Readonly<Record<Lang, string>> = {
  en: 'A session with the `openai` agent (an OpenAI-compatible endpoint configured on the server) can read it in full.',
  zh: '选择 `openai` 智能体（需要服务器配置兼容 OpenAI 的接口）可以完整地读懂它。',
};

/** A plan that would leave numbers of the task unused: say what it leaves out and decline, never answer with a partial result. */
export function partialPlanRefusal(facts: ProblemFacts, plan: SolvePlan, dropped: readonly Quantity[]): AdvicePlan {
  const { lang } = facts;
  const left = listWords(lang, dropped.slice(0, 8).map((q) => `${answerNumber(q.value).text}${q.percent ? '%' : ''}`));
  const calls = plan.steps.map((step) => step.call(undefined, []));
  const first = calls[0];
  const computed = first?.tool === 'calculator' ? showExpression(first.input.expression) : undefined;
  return {
    kind: 'advice',
    lang,
    thought: say(
      lang,
      `The numbers are ${describeNumbers(lang, facts)}. ${computed ? `The calculation I can read, ${computed}, ` : 'The calculation I can read '}leaves out ${left}, so its result would answer only part of the task.`,
      `题中的数字有${describeNumbers(lang, facts)}。${computed ? `我能读出的算式 ${computed} ` : '我能读出的算法'}没有用到${left}，它的结果只回答了题目的一部分。`,
    ),
    action: say(
      lang,
      'I will not present a partial result as the answer. If you rewrite my thought above with the whole calculation, I will run it with the calculator.',
      '我不会把只算了一部分的结果当作答案。如果你把上面的思考改写成完整的算式，我就用计算器来算。',
    ),
    answer: () =>
      say(
        lang,
        `I could not use every number in the task, so I give no answer rather than a wrong one. ${DECLINE_NOTE.en}`,
        `我没能用上题中的每一个数字，所以宁可不答，也不给出错误的答案。${DECLINE_NOTE.zh}`,
      ),
  };
}

/** Numbers whose relation the analyser cannot tell: say so instead of guessing. */
export function unsurePlan(facts: ProblemFacts): AdvicePlan {
  const { lang } = facts;
  const numbers = describeNumbers(lang, facts);
  return {
    kind: 'advice',
    lang,
    thought: say(
      lang,
      `I can see the numbers ${numbers}, but no wording that tells me how they combine (such as "total", "each", "per", "% of", "off", or an operator like +).`,
      `我看到了数字${numbers}，但没有看出它们该怎样组合（比如“一共”“每”“平均”“的百分之”“打折”，或 + 这样的运算符）。`,
    ),
    action: say(
      lang,
      'I will not guess an operation. If you rewrite my thought above with the calculation to do, for example "12 × 7", I will run it with the calculator.',
      '我不去瞎猜运算。如果你把上面的思考改写成要算的式子，比如“12 × 7”，我就用计算器来算。',
    ),
    answer: () =>
      say(
        lang,
        `I could not work out which calculation this asks for, so I have no reliable number to give. ${DECLINE_NOTE.en}`,
        `我没能判断这道题要做什么计算，所以给不出可靠的数字。${DECLINE_NOTE.zh}`,
      ),
  };
}
