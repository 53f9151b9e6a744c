import { formatNumber } from '../../tools/number-format.js';
import { say, type Lang } from './language.js';
import type { AskPlan, Plan, ReplyPlan, Settled, UserReply } from './plan.js';
import type { ProblemFacts } from './problem-facts.js';
import { findQuantities, type Quantity } from './quantities.js';
import { normaliseProblemText } from './text-normalize.js';

/** "15% of the price", "20% of my salary": a percentage of something the task names but gives no number for. */
const ENGLISH = /(?<![\d.])(\d+(?:\.\d+)?%)\s+of\s+(the|my|his|her|their|its|our|your)\s+([a-z]+(?:\s+[a-z]+){0,2}?)\s*(?=[?.!,;]|$)/iu;
/** "价格的15%", "这件衣服价格的15%": what comes before 的, without the words that only lead into the question. */
const CHINESE = /((?:(?!的)[\u4e00-\u9fff]){1,8})的\s*(\d+(?:\.\d+)?%)/u;
const CHINESE_LEAD = /^(?:请问|请|那么|计算|算出|算一下|算算|求出|求)/u;

/** What the task lacks: the phrase that names it, and how the question names it back. */
interface Missing {
  /** The words in the task that stand for the number ("the price", "价格"). */
  phrase: string;
  /** The thing, as the question asks for it ("the price", "your salary", "价格"). */
  asked: string;
  percent: string;
}

const YOURS: Readonly<Record<string, string>> = { my: 'your', our: 'your', your: 'my' };

function findMissing(facts: ProblemFacts): Missing | undefined {
  if (facts.quantities.length !== 1 || !facts.quantities[0]?.percent) return undefined;
  const english = ENGLISH.exec(facts.text);
  if (english?.[1] && english[2] && english[3]) {
    const determiner = english[2].toLowerCase();
    const phrase = `${english[2]} ${english[3]}`;
    return { phrase, asked: `${YOURS[determiner] ?? determiner} ${english[3]}`, percent: english[1] };
  }
  const chinese = CHINESE.exec(facts.text);
  if (chinese?.[1] && chinese[2]) {
    const phrase = chinese[1].replace(CHINESE_LEAD, '');
    if (!phrase) return undefined;
    return { phrase, asked: phrase, percent: chinese[2] };
  }
  return undefined;
}

/** A number the user gave, as the task would write it: $80, 80元, 80 kg, 80. */
function written(quantity: Quantity): string {
  const value = formatNumber(quantity.value);
  if (quantity.currency === '元') return `${value}元`;
  if (quantity.currency) return `${quantity.currency}${value}`;
  if (quantity.unit) return `${value} ${quantity.unit.symbol}`;
  return value;
}

/** The number an answer gives: the first that is not a percentage ("$80", "It's 80 dollars", "80元"). */
function givenNumber(text: string): Quantity | undefined {
  return findQuantities(normaliseProblemText(text)).find((quantity) => !quantity.percent);
}

function noNumberPlan(lang: Lang, missing: Missing, reply: UserReply): ReplyPlan {
  const { asked, percent } = missing;
  const heard =
    'unanswered' in reply
      ? say(lang, `You did not tell me ${asked}`, `你没有告诉我${asked}`)
      : say(lang, `I could not read a number in your answer "${reply.text.trim()}"`, `我在你的回答“${reply.text.trim()}”里读不到数字`);
  return {
    kind: 'reply',
    lang,
    thought: say(lang, `${heard}, so ${percent} of it cannot be computed.`, `${heard}，所以没法算出它的${percent}。`),
    answer: say(
      lang,
      `${heard}, so I cannot compute ${percent} of ${asked}; I will not make a number up. Ask again with ${asked} in it.`,
      `${heard}，所以算不出${asked}的${percent}；我不会编造数字。请把${asked}写进问题里再问一次。`,
    ),
  };
}

/**
 * A task whose asked quantity needs a number it does not give ("What is 15% of the price?"):
 * ask for it (PROTOCOL.md §25.1), then solve the task with the number the user gives written in
 * its place, planned by `analyse` (the problem analyser).
 */
export function recognizeMissingQuantity(facts: ProblemFacts, analyse: (text: string, lang: Lang) => Plan): AskPlan | undefined {
  const missing = findMissing(facts);
  if (!missing) return undefined;
  const { lang } = facts;
  const { asked, percent, phrase } = missing;
  const capitalised = asked.charAt(0).toUpperCase() + asked.slice(1);
  return {
    kind: 'ask',
    lang,
    thought: say(
      lang,
      `The question asks for ${percent} of ${asked}, but gives no number for ${asked}. I can't compute it without that, so I'll ask you for it.`,
      `题目要求${asked}的${percent}，但没有给出${asked}是多少。没有这个数我算不出来，所以先问你。`,
    ),
    question: say(lang, `What is ${asked}?`, `${asked}是多少？`),
    settle(reply: UserReply): Settled {
      const given = 'unanswered' in reply ? undefined : givenNumber(reply.text);
      if (!given) return { plan: noNumberPlan(lang, missing, reply) };
      const number = written(given);
      const text = facts.text.replace(phrase, number);
      const plan = analyse(text, lang);
      const lead = say(lang, `${capitalised} is ${number}, as you told me. `, `你告诉我${asked}是${number}。`);
      return { plan: { ...plan, thought: lead + plan.thought }, question: { text, operations: [] }, text };
    },
  };
}
