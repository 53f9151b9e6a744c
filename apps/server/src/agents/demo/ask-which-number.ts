import { ASK_USER_LIMITS } from '@interthought/protocol';
import { ambiguousNumberPlan } from './follow-up-replies.js';
import { listWords, say, type Lang } from './language.js';
import type { AskPlan, ReplyPlan, Settled, StepValue, UserReply } from './plan.js';
import type { Substitution } from './recognize-substitution.js';
import { normaliseProblemText } from './text-normalize.js';
import { pickedChoice } from './user-reply.js';

type Ambiguous = Extract<Substitution, { kind: 'ambiguous' }>;

const NUMBER = /(?<![\d.])\d+(?:\.\d+)?/gu;
const DATE = /\d{4}-\d{1,2}-\d{1,2}/u;

/** The numbers a text names, as values (a date is its text). */
function namedValues(text: string): string[] {
  const normalised = normaliseProblemText(text);
  const date = DATE.exec(normalised)?.[0];
  return date ? [date] : (normalised.match(NUMBER) ?? []).map((digits) => String(Number(digits)));
}

/** Whether the answer names what a candidate counts: "the pears" (a word of it, singular or plural), "梨". */
function namesNoun(text: string, noun: string | undefined): boolean {
  if (!noun) return false;
  const lower = text.toLowerCase();
  const word = noun.toLowerCase();
  if (!/[a-z]/u.test(word)) return lower.includes(word);
  // "pears" and "pear", "boxes" and "box": the forms as whole words.
  const forms = [...new Set([word, word.replace(/s$/u, ''), word.replace(/es$/u, '')])].map((form) => form.replace(/[^a-z]/gu, ''));
  return new RegExp(String.raw`\b(?:${forms.join('|')})s?\b`, 'u').test(lower);
}

/** The candidate an answer in the user's own words names ("the 12", "replace 40", "the pears", "换掉15"): exactly one, else none. */
function namedCandidate(text: string, ambiguous: Ambiguous, count: number): number | undefined {
  const said = new Set(namedValues(text));
  // The new number itself ("use 25 for the 12") does not pick a candidate.
  for (const own of namedValues(ambiguous.value)) said.delete(own);
  const candidates = ambiguous.candidates.slice(0, count);
  const byNumber = candidates.flatMap((candidate, index) => (namedValues(candidate).some((v) => said.has(v)) ? [index] : []));
  if (byNumber.length === 1) return byNumber[0];
  if (byNumber.length > 1) return undefined;
  const byNoun = candidates.flatMap((_, index) => (namesNoun(text, ambiguous.nouns[index]) ? [index] : []));
  return byNoun.length === 1 ? byNoun[0] : undefined;
}

/** An answer that names none of the candidates: say so and change nothing. */
function unpickedPlan(lang: Lang, text: string, ambiguous: Ambiguous, answer: StepValue | undefined): ReplyPlan {
  const options = listWords(lang, ambiguous.candidates);
  const fallback = ambiguousNumberPlan(lang, ambiguous.value, ambiguous.candidates, answer);
  return {
    kind: 'reply',
    lang,
    thought: say(lang, `Your answer "${text.trim()}" names none of ${options}.`, `你的回答“${text.trim()}”没有指明${options}中的哪一个。`),
    answer: fallback.answer,
  };
}

/**
 * A new number that could replace several of the question's ("What if it were 25?" after a task
 * with 12 and 15): ask which, the candidates as choices (PROTOCOL.md §25.1), and go on with the
 * one the answer picks — clicked, or named in the user's words. `changed` plans the turn once
 * the substitution is settled.
 */
export function whichNumberPlan(lang: Lang, ambiguous: Ambiguous, answer: StepValue | undefined, changed: (substitution: Substitution) => Settled): AskPlan {
  const { value, candidates } = ambiguous;
  const choices = candidates.slice(0, ASK_USER_LIMITS.choicesMax);
  const options = listWords(lang, choices);
  return {
    kind: 'ask',
    lang,
    thought: say(lang, `${value} could replace ${options}; rather than guess, I'll ask you which.`, `${value}可以替换${options}中的任何一个，我不去猜，先问问你。`),
    question: say(lang, `Which number should ${value} replace?`, `${value}要替换哪个数？`),
    choices,
    settle(reply: UserReply): Settled {
      if ('unanswered' in reply) return { plan: ambiguousNumberPlan(lang, value, candidates, answer) };
      const index = pickedChoice(reply, choices) ?? namedCandidate(reply.text, ambiguous, choices.length);
      return index === undefined ? { plan: unpickedPlan(lang, reply.text, ambiguous, answer) } : changed(ambiguous.choose(index));
    },
  };
}
