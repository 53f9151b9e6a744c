import { isShareActor } from '@interthought/protocol';
import type { I18n } from '$lib/i18n/index.js';

/** Which table of words a line uses: a step's correction badge, or a decision (approval, question, rule). */
export type WhoStyle = 'step' | 'approval';

const KEYS = {
  step: { you: 'step.correctedWhoYou', name: 'step.correctedWhoName', other: 'step.correctedWhoOther' },
  approval: { you: 'approval.whoYou', name: 'approval.whoName', other: 'approval.whoOther' },
} as const;

/**
 * Who made a record, in words people use (PROTOCOL.md §21.2, saying who): "you" (the page decides,
 * with `isOwn`: without users every connection is the one user), a name, "someone with a share
 * link", else "someone else". Never an id, never "another window".
 */
export function whoWords(i18n: I18n, style: WhoStyle, by: string | undefined, byName: string | undefined, isOwn: (by: string | undefined) => boolean): string {
  const keys = KEYS[style];
  if (isOwn(by)) return i18n.t(keys.you);
  if (isShareActor(by)) return i18n.t('words.whoShareLink');
  if (byName !== undefined) return i18n.t(keys.name, { name: byName });
  return i18n.t(keys.other);
}
