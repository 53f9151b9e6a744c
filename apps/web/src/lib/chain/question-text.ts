import { parseAskUserInput, type AskUserInput, type StepQuestion } from '@interthought/protocol';
import { whoWords } from '$lib/attribution/index.js';
import type { I18n } from '$lib/i18n/index.js';

/** Who closes a question nobody answered in time (PROTOCOL.md §25.2). */
const SERVER = 'server';

/**
 * What an `ask_user` call asks, read from its content with the protocol's own schema; undefined
 * while it streams or when the input does not fit (then the server answers it with an error, §25.1).
 */
export function askedQuestion(content: string): AskUserInput | undefined {
  return parseAskUserInput(content);
}

/**
 * The line an answered or timed-out question keeps: "Answered by you · 12:03", "Answered by
 * Alice · 12:03", "No answer in time · 12:03". `isOwn` says whether a user or connection id is this
 * page's. Undefined while the question waits.
 */
export function describeQuestionOutcome(i18n: I18n, question: StepQuestion, isOwn: (by: string | undefined) => boolean, now: number): string | undefined {
  const when = question.at === undefined ? '' : i18n.formatTimeOfDay(question.at, now);
  switch (question.state) {
    case 'pending':
      return undefined;
    case 'timed_out':
      return i18n.t('question.timedOut', { when });
    case 'answered': {
      if (question.by === SERVER) return i18n.t('question.timedOut', { when });
      const who = whoWords(i18n, 'approval', question.by, question.byName, isOwn);
      return i18n.t('question.answeredBy', { who, when });
    }
    default: {
      // A state a newer server knows: say nothing rather than something wrong.
      const unknown: never = question.state;
      void unknown;
      return undefined;
    }
  }
}

/** Whether a key press in the answer field sends it: Enter alone (Shift+Enter is a new line; an IME composing is neither). */
export function sendsAnswer(event: Pick<KeyboardEvent, 'key' | 'shiftKey' | 'isComposing' | 'altKey' | 'ctrlKey' | 'metaKey'>): boolean {
  return event.key === 'Enter' && !event.shiftKey && !event.isComposing && !event.altKey;
}
