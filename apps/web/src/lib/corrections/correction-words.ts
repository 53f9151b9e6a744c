import type { CorrectionAct, CorrectionRecord } from '@interthought/protocol';
import { whoWords } from '$lib/attribution/index.js';
import type { I18n } from '$lib/i18n/index.js';

const ACT_KEYS = {
  edited: 'corrections.act.edited',
  approval_edited: 'corrections.act.approval_edited',
  rejected: 'corrections.act.rejected',
} as const satisfies Record<CorrectionAct, string>;

/** What the person did, in words: "edited", "edited before it ran", "refused". */
export function actWords(i18n: I18n, act: CorrectionAct): string {
  return i18n.t(ACT_KEYS[act]);
}

/** Who corrected, as people say it ("you", a name, "someone with a share link"); an unnamed other person keeps a short id so two of them can be told apart in the filter. */
export function personWords(i18n: I18n, by: string, byName: string | undefined, isOwn: (by: string | undefined) => boolean, { distinct = false } = {}): string {
  const words = whoWords(i18n, 'step', by, byName, isOwn).trim();
  if (distinct && words === i18n.t('step.correctedWhoOther')) return i18n.t('corrections.filter.someone', { id: by.slice(0, 8) });
  return words;
}

/**
 * The step a row opens in its session: the one that stands on the chain now. An edit replaced
 * the corrected step, which folded away as superseded, so it is the correction; a refused call
 * stays on the chain with its refusal under it, so it is the call.
 */
export function linkedStepOf(record: Pick<CorrectionRecord, 'correction' | 'stepId' | 'correctedStepId'>): string {
  return record.correction === 'rejected' ? record.stepId : record.correctedStepId;
}

/** The session page's address that opens the row's step (`?step=`, read by the session page). */
export function stepHref(record: Pick<CorrectionRecord, 'sessionId' | 'correction' | 'stepId' | 'correctedStepId'>): string {
  return `/sessions/${encodeURIComponent(record.sessionId)}?step=${encodeURIComponent(linkedStepOf(record))}`;
}
