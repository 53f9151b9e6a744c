import type { Step } from '@interthought/protocol';
import type { UserReply } from './plan.js';
import { normaliseProblemText } from './text-normalize.js';

/**
 * What the observation of an `ask_user` call says the user answered (PROTOCOL.md §25.2): the
 * answer's `result { answer, choice? }`, a timeout's `result { unanswered }`, or, once a user
 * rewrote the observation, its text.
 */
export function readUserReply(step: Step): UserReply {
  const result = step.result as { answer?: unknown; choice?: unknown; unanswered?: unknown } | undefined;
  if (step.status !== 'corrected' && result && typeof result === 'object') {
    if (result.unanswered === true) return { unanswered: true };
    if (typeof result.answer === 'string') {
      return typeof result.choice === 'number' ? { text: result.answer, choice: result.choice } : { text: result.answer };
    }
  }
  return step.content.trim() ? { text: step.content } : { unanswered: true };
}

/** Loose text to compare an answer with a choice: no case, spacing or closing punctuation, operators as the calculator writes them. */
function loose(text: string): string {
  // Superscripts first: NFKC would make 3² the number 32.
  const powers = text.replace(/²/gu, '^2').replace(/³/gu, '^3');
  return normaliseProblemText(powers)
    .toLowerCase()
    .replace(/[×]/gu, '*')
    .replace(/[÷]/gu, '/')
    .replace(/[−]/gu, '-')
    .replace(/[\s。!?！？"'“”]+|\.(?!\d)/gu, '');
}

const ORDINALS: ReadonlyArray<RegExp> = [
  /^(?:the\s+)?(?:first|1st|former)(?:\s+one)?$|^(?:option\s+)?(?:#\s*)?1$|^第一(?:个|种)?$|^前者$/iu,
  /^(?:the\s+)?(?:second|2nd|latter)(?:\s+one)?$|^(?:option\s+)?(?:#\s*)?2$|^第二(?:个|种)?$|^后者$/iu,
  /^(?:the\s+)?(?:third|3rd)(?:\s+one)?$|^(?:option\s+)?(?:#\s*)?3$|^第三(?:个|种)?$/iu,
];

/**
 * Which of `choices` a reply picks: the one clicked (`choice`), the one its text equals (loosely),
 * or one named by position ("the second", "第一个"). Undefined when it picks none of them; the
 * caller may read the text its own way then.
 */
export function pickedChoice(reply: UserReply, choices: readonly string[]): number | undefined {
  if ('unanswered' in reply) return undefined;
  if (reply.choice !== undefined && reply.choice >= 0 && reply.choice < choices.length) return reply.choice;
  const said = loose(reply.text);
  const equal = choices.findIndex((choice) => loose(choice) === said);
  if (equal >= 0) return equal;
  const words = reply.text.trim().replace(/[.。!?！？]+$/u, '');
  const ordinal = ORDINALS.findIndex((pattern) => pattern.test(words));
  return ordinal >= 0 && ordinal < choices.length ? ordinal : undefined;
}
