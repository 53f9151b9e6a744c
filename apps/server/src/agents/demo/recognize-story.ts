import { formatNumber } from '../../tools/number-format.js';
import { answerNumber, formatCount, formatMoney } from './answer-format.js';
import { listWords, say, type Lang } from './language.js';
import { calculatorStep, type Outcome, type SolvePlan } from './plan.js';
import { mentions, plainPair, plainQuantities, type ProblemFacts } from './problem-facts.js';
import type { Quantity } from './quantities.js';
import { speedOf } from './rate-units.js';

const GAINS = ['buys', 'bought', 'buy', 'gets', 'got', 'receives', 'received', 'finds', 'found', 'adds', 'added', 'more', 'gains', 'gained', 'earns', 'earned', 'picks', 'picked', 'plus', 'wins', 'won', 'collects', 'collected', 'comes', 'came', 'joins', 'joined', 'arrive', 'arrived',
  '又买了', '买了', '买来', '得到', '收到', '捡到', '多了', '增加', '加上', '来了', '放进', '借来', '送来', '拿来', '摘了', '又有', '赢了', '新买', '添了'];
const LOSSES = ['eats', 'ate', 'eat', 'gives', 'gave', 'give', 'loses', 'lost', 'sells', 'sold', 'spends', 'spent', 'uses', 'used', 'breaks', 'broke', 'takes', 'took', 'minus', 'removes', 'removed', 'fewer', 'less', 'leave', 'left', 'away', 'drops', 'dropped',
  '吃了', '吃掉', '给了', '送给', '送了', '卖了', '卖掉', '用了', '用掉', '丢了', '花了', '少了', '拿走', '走了', '飞走', '借给', '减去', '坏了', '送出', '分给', '扔了', '吃'];
/** How many numbers an "unsure" thought names before summarising the rest. */
const NUMBERS_NAMED = 8;
/** A story longer than this is not a word problem worth one expression (and would exceed the calculator's input limit). */
const STORY_MAX_NUMBERS = 40;
const TOTAL_CUES = ['altogether', 'in total', 'in all', 'total', 'combined', 'sum', '一共', '总共', '合计', '共'];
const AVERAGE_CUES = ['average', 'mean', '平均数', '平均值', '平均成绩'];
const DIFFERENCE_CUES = ['how many more', 'how much more', 'how many fewer', 'how much less', 'how much longer', 'how much taller', 'how much older', 'difference', '多多少', '少多少', '相差', '差多少', '还差', '大多少', '长多少', '高多少'];

/** An English noun as more than one: apple → apples, box → boxes, berry → berries (other scripts as they are). */
function pluralOf(noun: string): string {
  if (!/^[a-z]+$/iu.test(noun)) return noun;
  if (/(?:s|x|z|ch|sh)$/iu.test(noun)) return `${noun}es`;
  if (/[^aeiou]y$/iu.test(noun)) return `${noun.slice(0, -1)}ies`;
  return `${noun}s`;
}

/** What the answer counts: the noun of a count other than 1 (already plural), else the one seen after "1", made plural. */
function counted(quantities: readonly Quantity[]): Pick<Quantity, 'noun' | 'measure'> {
  const severalOf = quantities.find((q) => q.noun && q.value !== 1);
  const withNoun = severalOf ?? quantities.find((q) => q.noun) ?? quantities.find((q) => q.measure);
  const noun = withNoun?.noun && severalOf === undefined && withNoun.value === 1 ? pluralOf(withNoun.noun) : withNoun?.noun;
  return { ...(noun ? { noun } : {}), ...(withNoun?.measure ? { measure: withNoun.measure } : {}) };
}

function missing(lang: Lang): string {
  return say(lang, 'I have no number to report.', '我没有得到可以报告的数字。');
}

/** What a number measures, for telling whether numbers can be averaged together: a speed, a length, a plain count. */
function measuredAs(quantity: Quantity): string {
  if (speedOf(quantity)) return 'speed';
  return `${quantity.unit?.dimension ?? ''}/${quantity.per?.unit?.dimension ?? ''}`;
}

/** "What is the average of 3, 5 and 10?", "3、5、10的平均数是多少？" */
export function recognizeAverage(facts: ProblemFacts): SolvePlan | undefined {
  const numbers = plainQuantities(facts);
  if (numbers.length < 2 || numbers.length > STORY_MAX_NUMBERS || !mentions(facts, AVERAGE_CUES)) return undefined;
  // Distances and speeds (or hours and kilometres) have no mean: averaging them would be a confident wrong answer.
  if (new Set(numbers.map(measuredAs)).size > 1) return undefined;
  const { lang } = facts;
  const values = numbers.map((q) => formatNumber(q.value));
  const expression = `(${values.join(' + ')}) / ${values.length}`;
  const what = counted(numbers);
  return {
    kind: 'solve',
    lang,
    thought: say(
      lang,
      `The average of ${listWords(lang, values)}: add the ${values.length} numbers and divide by ${values.length}, (${values.join(' + ')}) ÷ ${values.length}.`,
      `求${listWords(lang, values)}的平均数：把这${values.length}个数相加再除以${values.length}，即 (${values.join(' + ')}) ÷ ${values.length}。`,
    ),
    approach: say(lang, 'A sum and a division.', '先求和，再做除法。'),
    steps: [calculatorStep(expression)],
    answer: (outcome: Outcome) =>
      outcome.value === undefined
        ? missing(lang)
        : say(lang, `The average is ${formatCount(lang, outcome.value, what)}.`, `平均数是${formatCount(lang, outcome.value, what)}。`),
  };
}

/** "Tom has 12 apples and Jerry has 5. How many more does Tom have?", "比…多多少" */
export function recognizeDifference(facts: ProblemFacts): SolvePlan | undefined {
  const pair = plainPair(facts);
  if (!pair || !mentions(facts, DIFFERENCE_CUES)) return undefined;
  const [a, b] = pair;
  const { lang } = facts;
  const [larger, smaller] = a.value >= b.value ? [a, b] : [b, a];
  const l = formatNumber(larger.value);
  const s = formatNumber(smaller.value);
  const what = counted(pair);
  return {
    kind: 'solve',
    lang,
    thought: say(
      lang,
      `Comparing ${formatCount(lang, larger.value, larger)} with ${formatCount(lang, smaller.value, smaller)}: the difference is the larger minus the smaller, ${l} − ${s}.`,
      `比较${formatCount(lang, larger.value, larger)}和${formatCount(lang, smaller.value, smaller)}：相差多少就是大数减小数，即 ${l} − ${s}。`,
    ),
    approach: say(lang, 'One subtraction does it.', '一次减法就够了。'),
    steps: [calculatorStep(`${l} - ${s}`)],
    answer: (outcome: Outcome) =>
      outcome.value === undefined
        ? missing(lang)
        : say(lang, `The difference is ${formatCount(lang, outcome.value, what)}.`, `相差${formatCount(lang, outcome.value, what)}。`),
  };
}

/** Every cue as a pattern, compiled once: English words match whole, Chinese ones anywhere. */
const CUE_PATTERNS: ReadonlyArray<{ sign: '+' | '-'; word: string; pattern: RegExp }> = [
  ...GAINS.map((word) => ({ sign: '+' as const, word })),
  ...LOSSES.map((word) => ({ sign: '-' as const, word })),
].map((cue) => ({ ...cue, pattern: new RegExp(/^[a-z]/u.test(cue.word) ? `(?<![a-z])${cue.word}(?![a-z])` : cue.word, 'gu') }));

/** The cue word nearest before a number (or right after it: "5 more"), and whether it adds or takes away. */
function cueFor(facts: ProblemFacts, previousEnd: number, quantity: Quantity): { sign: '+' | '-'; word: string } | undefined {
  const before = facts.lower.slice(previousEnd, quantity.start);
  const after = facts.lower.slice(quantity.end, quantity.end + 12);
  let best: { sign: '+' | '-'; word: string; at: number } | undefined;
  for (const { sign, word, pattern } of CUE_PATTERNS) {
    for (const match of before.matchAll(pattern)) {
      const at = match.index ?? 0;
      if (!best || at > best.at || (at === best.at && word.length > best.word.length)) best = { sign, word, at };
    }
  }
  if (best) return { sign: best.sign, word: best.word };
  const trailing = /^\s*(more|fewer|less)\b/u.exec(after);
  if (trailing?.[1]) return { sign: trailing[1] === 'more' ? '+' : '-', word: trailing[1] };
  return undefined;
}

function subjectOf(facts: ProblemFacts, first: Quantity): string | undefined {
  const clause = facts.text.slice(0, first.start).split(/[,.;!?，。；！？]/u).pop() ?? '';
  const chinese = /^\s*([\u4e00-\u9fff]{1,4}?)(?:原来|本来|原有|一共|先)?有\s*$/u.exec(clause);
  if (chinese?.[1]) return chinese[1];
  const english = /\b([A-Z][a-z]+)\s+(?:has|had|have|owns|owned|starts with|started with|collected|bought)\s+$/u.exec(clause);
  return english?.[1];
}

/** "小明有12个苹果，吃了3个，又买了5个，现在有几个？", "Tom has 12 apples. He eats 3 and buys 5 more." */
export function recognizeStory(facts: ProblemFacts): SolvePlan | undefined {
  const numbers = plainQuantities(facts);
  const [first] = numbers;
  if (numbers.length < 2 || numbers.length > STORY_MAX_NUMBERS || !first || numbers.some((q) => q.unit || q.per)) return undefined;
  // Money stories ("had $20, spent 7") keep the currency; mixing currencies is no simple story.
  const currencies = new Set(numbers.flatMap((q) => (q.currency ? [q.currency] : [])));
  if (currencies.size > 1) return undefined;
  const currency = [...currencies][0];
  const total = mentions(facts, TOTAL_CUES);
  const moves: Array<{ quantity: Quantity; sign: '+' | '-'; word?: string }> = [];
  for (let i = 1; i < numbers.length; i++) {
    const quantity = numbers[i] as Quantity;
    const cue = cueFor(facts, (numbers[i - 1] as Quantity).end, quantity);
    if (!cue && !total) return undefined;
    moves.push({ quantity, sign: cue?.sign ?? '+', ...(cue ? { word: cue.word } : {}) });
  }
  const { lang } = facts;
  const expression = [formatNumber(first.value), ...moves.map((m) => `${m.sign} ${formatNumber(m.quantity.value)}`)].join(' ');
  const shown = expression.replace(/-/gu, '−');
  const what = counted(numbers);
  const subject = subjectOf(facts, first);
  const n = (q: Quantity) => formatNumber(q.value);
  const amount = (q: Quantity) => (q.currency ? formatMoney(lang, q.value, q.currency) : formatCount(lang, q.value, q));
  const quantityWord = currency ? say(lang, 'amount', '金额') : say(lang, 'count', '数量');
  const steps = moves.map((m) =>
    say(
      lang,
      `${m.word} ${n(m.quantity)} (${m.sign === '+' ? 'adds' : 'takes away'} ${n(m.quantity)})`,
      `${m.word}${n(m.quantity)}${m.quantity.measure ?? ''}（${m.sign === '+' ? '加' : '减'}${n(m.quantity)}）`,
    ),
  );
  const sumOnly = moves.every((m) => m.word === undefined);
  const thought = sumOnly
    ? say(
        lang,
        `Adding everything up: ${listWords(lang, numbers.map(amount))}. So the total is ${shown}.`,
        `把各部分加起来：${listWords(lang, numbers.map(amount))}。所以总数是 ${shown}。`,
      )
    : say(
        lang,
        `${subject ?? 'It'} starts with ${amount(first)}; then ${steps.join(', ')}. So the ${quantityWord} is ${shown}.`,
        `${subject ?? ''}原有${amount(first)}；${steps.join('，')}。所以${quantityWord}是 ${shown}。`,
      );
  return {
    kind: 'solve',
    lang,
    thought,
    approach: say(lang, 'Writing every change into one expression keeps any of them from being dropped.', '把每一次变化写进一个算式，一步都不漏。'),
    steps: [calculatorStep(expression)],
    answer: (outcome: Outcome) => {
      if (outcome.value === undefined) return missing(lang);
      const count = currency ? formatMoney(lang, outcome.value, currency) : formatCount(lang, outcome.value, what);
      if (sumOnly) return say(lang, `Altogether that makes ${count}.`, `一共有${count}。`);
      if (subject) return say(lang, `${subject} now has ${count}.`, `${subject}现在有${count}。`);
      return say(lang, `The answer is ${count}.`, `答案是${count}。`);
    },
  };
}

/** Numbers the analyser found but could not relate, for an honest "I'm not sure". */
export function describeNumbers(lang: Lang, facts: ProblemFacts): string {
  const shown = facts.quantities.slice(0, NUMBERS_NAMED).map((q) => `${answerNumber(q.value).text}${q.percent ? '%' : ''}`);
  const more = facts.quantities.length - shown.length;
  if (more > 0) shown.push(say(lang, `${more} more`, `另外${more}个数`));
  return listWords(lang, shown);
}
