import { formatNumber } from '../../tools/number-format.js';
import { showExpression } from './expression-finder.js';
import { say, type Lang } from './language.js';
import type { AskPlan, Plan, ReplyPlan, Settled, UserReply } from './plan.js';
import type { ProblemFacts } from './problem-facts.js';
import { pickedChoice } from './user-reply.js';

/** A factor said in words before a number that is raised to a power: "half of", "twice", "一半的", "2倍的". */
interface Factor {
  op: '/' | '*';
  by: number;
}

/**
 * "half of 3 squared" (and "twice 5 cubed", "一半的3的平方", "2倍的3的平方"): the factor may apply
 * to the power or to the number before it is raised. Each pattern starts with a literal word, so it
 * costs time linear in the text.
 */
const N = String.raw`(?<![\d.])(\d+(?:\.\d+)?)`;
const ENGLISH = new RegExp(String.raw`\b(half of|twice|double|triple)\s+${N}\s+(squared|cubed)\b`, 'iu');
const CHINESE = new RegExp(String.raw`(一半|${N}\s*倍)的\s*${N}\s*的(平方|立方)`, 'u');

/** The phrase, what it says and where it is in the text. */
interface AmbiguousPower {
  phrase: string;
  factor: Factor;
  base: string;
  power: number;
}

function englishFactor(word: string): Factor {
  switch (word.toLowerCase()) {
    case 'half of':
      return { op: '/', by: 2 };
    case 'triple':
      return { op: '*', by: 3 };
    default:
      return { op: '*', by: 2 };
  }
}

function findAmbiguousPower(text: string): AmbiguousPower | undefined {
  const english = ENGLISH.exec(text);
  if (english?.[1] && english[2] && english[3]) {
    return { phrase: english[0], factor: englishFactor(english[1]), base: english[2], power: english[3].toLowerCase() === 'squared' ? 2 : 3 };
  }
  const chinese = CHINESE.exec(text);
  if (chinese?.[1] && chinese[3] && chinese[4]) {
    const factor: Factor = chinese[1] === '一半' ? { op: '/', by: 2 } : { op: '*', by: Number(chinese[2]) };
    return { phrase: chinese[0], factor, base: chinese[3], power: chinese[4] === '平方' ? 2 : 3 };
  }
  return undefined;
}

/** The two readings as calculator expressions: the factor on the power, or the power of the factored number. */
function readings({ factor, base, power }: AmbiguousPower): [string, string] {
  const by = formatNumber(factor.by);
  const raised = `(${base}^${power})`;
  const onPower = factor.op === '/' ? `${raised} / ${by}` : `${by} * ${raised}`;
  const factored = factor.op === '/' ? `(${base} / ${by})` : `(${by} * ${base})`;
  return [onPower, `${factored}^${power}`];
}

/** Words that pick a reading: the power first (reading 0), or the factor first (reading 1). */
const POWER_FIRST = /\b(?:square|cube|power)\w*\s+(?:it\s+)?first\b|\b(?:half|double|twice|triple)\s+(?:of\s+)?the\s+(?:square|cube|power)\b|先\s*(?:算|求)?\s*(?:平方|立方|乘方)|(?:平方|立方)的一半/iu;
const FACTOR_FIRST = /\b(?:halve|half|double|twice|triple)\w*\s+(?:it\s+)?first\b|\b(?:square|cube)\s+of\s+(?:the\s+)?(?:half|double|twice|triple)\b|先\s*(?:算|取|求)?\s*(?:一半|除以|乘以|翻倍|\d+\s*倍)|一半的(?:平方|立方)/iu;

function readingNamed(text: string): number | undefined {
  const powerFirst = POWER_FIRST.test(text);
  const factorFirst = FACTOR_FIRST.test(text);
  if (powerFirst === factorFirst) return undefined;
  return powerFirst ? 0 : 1;
}

/** No reading picked: compute neither, and say how to go on. */
function unsettledPlan(lang: Lang, choices: readonly string[], reply: UserReply): ReplyPlan {
  const [a, b] = choices;
  const heard =
    'unanswered' in reply
      ? say(lang, 'You did not say which reading you meant', '你没有说明指的是哪一种读法')
      : say(lang, `I could not tell which reading "${reply.text.trim()}" means`, `我看不出“${reply.text.trim()}”指的是哪一种读法`);
  return {
    kind: 'reply',
    lang,
    thought: say(lang, `${heard}, so I will not guess.`, `${heard}，我不去猜。`),
    answer: say(
      lang,
      `${heard}, so I have computed neither. Ask again with the one you mean, "${a}" or "${b}".`,
      `${heard}，所以两种都没有算。请用你要的那一种再问一次：“${a}”或“${b}”。`,
    ),
  };
}

/**
 * A task that reads two ways ("What is half of 3 squared?": (3^2) ÷ 2 or (3 ÷ 2)^2): ask which
 * is meant, both readings as choices (PROTOCOL.md §25.1), and compute the one the answer picks:
 * the task with that reading written out, planned by `analyse` (the problem analyser).
 */
export function recognizeAmbiguousReading(facts: ProblemFacts, analyse: (text: string, lang: Lang) => Plan): AskPlan | undefined {
  const found = findAmbiguousPower(facts.text);
  if (!found) return undefined;
  const { lang } = facts;
  const expressions = readings(found);
  const choices = expressions.map(showExpression);
  const [a, b] = choices;
  const phrase = found.phrase;
  return {
    kind: 'ask',
    lang,
    thought: say(
      lang,
      `"${phrase}" can be read two ways: ${a} or ${b}. They give different answers, so I'll ask which one you mean rather than guess.`,
      `“${phrase}”有两种读法：${a}，或 ${b}。两者结果不同，所以我先问你指的是哪一种，不去猜。`,
    ),
    question: say(lang, `Which reading of "${phrase}" do you mean?`, `“${phrase}”指的是哪一种？`),
    choices,
    settle(reply: UserReply): Settled {
      const index = pickedChoice(reply, choices) ?? ('unanswered' in reply ? undefined : readingNamed(reply.text));
      const expression = index === undefined ? undefined : expressions[index];
      if (expression === undefined) return { plan: unsettledPlan(lang, choices, reply) };
      // Brackets keep the reading whole inside a longer calculation ("10 / half of 3 squared").
      const alone = !/\d/u.test(facts.text.replace(phrase, ''));
      const text = facts.text.replace(phrase, alone ? expression : `(${expression})`);
      const shown = choices[index ?? 0] ?? '';
      const plan = analyse(text, lang);
      return {
        plan: { ...plan, thought: say(lang, `You chose ${shown}. `, `你选的是 ${shown}。`) + plan.thought },
        question: { text, operations: [] },
        text,
      };
    },
  };
}
