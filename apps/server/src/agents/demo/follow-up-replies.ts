import { formatWithUnit } from './answer-format.js';
import { describeOperations, type AnswerOperation } from './follow-up-question.js';
import { listWords, say, type Lang } from './language.js';
import type { ReplyPlan, StepValue } from './plan.js';

/** What the agent understands in a message, said whenever it did not understand one (examples only, no answer). */
function examples(lang: Lang): string {
  return say(
    lang,
    'I understand follow-ups such as "Add 10 to that." or "What if it were 25%?", and new questions such as "What is 7 * 8?".',
    '我能听懂这样的追问：“再加 10 呢？”“如果是 25% 呢？”，也能回答新的问题，比如“7 × 8 是多少？”。',
  );
}

/** The message as a quote: short, on one line. */
function quote(message: string): string {
  const line = message.replace(/\s+/gu, ' ').trim();
  return line.length > 60 ? `${line.slice(0, 57)}…` : line;
}

function standing(lang: Lang, answer: StepValue | undefined): string {
  if (answer?.value === undefined && answer?.date === undefined) return '';
  const value = answer.value === undefined ? (answer.date ?? '') : formatWithUnit(lang, answer.value, answer.unit);
  return say(lang, ` My previous answer, ${value}, still stands.`, `我上一个答案${value}仍然有效。`);
}

/** A message the agent cannot read as a change, an operation or a question: say so, compute nothing. */
export function notUnderstoodPlan(lang: Lang, message: string, answer: StepValue | undefined): ReplyPlan {
  const said = quote(message);
  return {
    kind: 'reply',
    lang,
    thought: say(
      lang,
      `You said "${said}". I can't tell which number or operation that changes, and it is not a question I can compute.`,
      `你说的是“${said}”。我看不出它要改哪个数字或哪一步运算，它也不是我能计算的问题。`,
    ),
    answer:
      say(lang, `I did not understand what to change from "${said}", so I have not computed anything new.`, `我没听懂“${said}”要我改什么，所以没有重新计算。`) +
      standing(lang, answer) +
      say(lang, ' ', '') +
      examples(lang),
  };
}

/** A new number that could replace several of the question's: name them and ask, never guess. */
export function ambiguousNumberPlan(lang: Lang, value: string, candidates: readonly string[], answer: StepValue | undefined): ReplyPlan {
  const options = listWords(lang, candidates);
  const first = candidates[0] ?? '';
  return {
    kind: 'reply',
    lang,
    thought: say(lang, `${value} could replace ${options}; I won't guess which.`, `${value}可以替换${options}中的任何一个，我不去猜。`),
    answer:
      say(
        lang,
        `I'm not sure which number ${value} should replace: ${options}. Say, for example, "Use ${value} instead of ${first}".`,
        `我不确定${value}要替换哪个数：${options}。可以这样说：“用 ${value} 代替 ${first}”。`,
      ) + standing(lang, answer),
  };
}

/** "Use 300 instead of 250" where the question has no 250. */
export function numberNotFoundPlan(lang: Lang, value: string, question: string, answer: StepValue | undefined): ReplyPlan {
  const asked = quote(question);
  return {
    kind: 'reply',
    lang,
    thought: say(lang, `The question "${asked}" has no ${value} to replace.`, `问题“${asked}”里没有${value}可以替换。`),
    answer:
      say(lang, `I could not find ${value} in "${asked}", so I have not changed anything.`, `我在“${asked}”里没找到${value}，所以什么也没改。`) +
      standing(lang, answer),
  };
}

/** Operations on a previous answer when there is none to start from (the last turn failed, or gave no number). */
export function noResultPlan(lang: Lang, operations: readonly AnswerOperation[]): ReplyPlan {
  const described = describeOperations(lang, operations);
  return {
    kind: 'reply',
    lang,
    thought: say(lang, `You asked me to ${described}, but there is no earlier result to apply that to.`, `你要我${described}，但之前没有可以用来计算的结果。`),
    answer: say(
      lang,
      `There is no earlier result, so I cannot ${described}; I have not computed anything. Ask a question first, for example "What is 15% of 240?", then follow up on its answer.`,
      `之前没有得到结果，没法${described}，所以我没有计算。请先提一个问题，比如“240的15%是多少？”，再在它的答案上追问。`,
    ),
  };
}
