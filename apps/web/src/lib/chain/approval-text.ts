import { POLICY_DECIDER, isShareActor, type RefusalResult, type StepApproval } from '@interthought/protocol';
import { whoWords } from '$lib/attribution/index.js';
import type { I18n } from '$lib/i18n/index.js';

/** Who decides when nobody did in time (PROTOCOL.md §19.4). */
const SERVER = 'server';
/** The reason the server gives a rejection for lack of a decision. */
const TIMED_OUT = 'timed out';

/** A decision as the step records it: one line, and the reason given, if any (shown apart, quieter). */
export interface DecisionText {
  line: string;
  reason: string | undefined;
}

/**
 * The line a decided tool call keeps: "Approved by you · 12:03", "Edited by someone
 * with a share link · 12:03", "Rejected by Alice · 12:03" (+ the reason), "Rejected: timed out · 12:03".
 * `isOwn` says whether a connection or user id is this page's; a name the server recorded
 * (`byName`) is said instead of "someone else". Undefined for a call still pending.
 */
export function describeDecision(
  i18n: I18n,
  approval: StepApproval,
  isOwn: (by: string | undefined) => boolean,
  now: number,
  tool?: string,
): DecisionText | undefined {
  if (approval.state === 'pending') return undefined;
  const when = approval.at === undefined ? '' : i18n.formatTimeOfDay(approval.at, now);
  const who = whoWords(i18n, 'approval', approval.by, approval.byName, isOwn);
  const standing = describeStandingDecision(i18n, approval, who, when, tool);
  if (standing) return standing;
  switch (approval.state) {
    case 'approved':
      return { line: i18n.t('approval.approvedBy', { who, when }), reason: undefined };
    case 'edited':
      return { line: i18n.t('approval.editedBy', { who, when }), reason: undefined };
    case 'rejected':
      if (approval.by === SERVER && approval.reason === TIMED_OUT) return { line: i18n.t('approval.timedOut', { when }), reason: undefined };
      return {
        line: approval.by === SERVER ? i18n.t('approval.rejectedByServer', { when }) : i18n.t('approval.rejectedBy', { who, when }),
        reason: approval.reason,
      };
    default: {
      // A decision a newer server knows: say nothing rather than something wrong.
      const unknown: never = approval.state;
      void unknown;
      return undefined;
    }
  }
}

/**
 * A decision nobody made at the call (PROTOCOL.md §25.3, §25.4): "Ran without asking: you allowed
 * calculator for this session", "… the session's rule 2 allows it", "Refused by the session's
 * rule 1". Rules are counted from 1 for people; the protocol's index counts from 0.
 */
function describeStandingDecision(i18n: I18n, approval: StepApproval, who: string, when: string, tool: string | undefined): DecisionText | undefined {
  if (approval.via === 'remembered') {
    return { line: i18n.t('approval.rememberedBy', { who, tool: tool ?? i18n.t('approval.someTool'), when }), reason: undefined };
  }
  if (approval.via !== 'rule') return undefined;
  const rule = i18n.formatNumber((approval.rule ?? 0) + 1);
  if (approval.state === 'rejected') return { line: i18n.t('approval.ruleDenied', { rule, when }), reason: undefined };
  return { line: i18n.t('approval.ruleAllowed', { rule, when }), reason: undefined };
}

/**
 * What the observation of a refused call says: that the tool did not run, who refused it, and why.
 * `byName` is the refuser's name when the call's approval recorded one.
 */
export function describeRefusal(
  i18n: I18n,
  result: RefusalResult,
  tool: string | undefined,
  isOwn: (by: string | undefined) => boolean,
  byName?: string,
): DecisionText {
  const name = tool ?? i18n.t('approval.someTool');
  if (result.by === POLICY_DECIDER && result.rule !== undefined) {
    return { line: i18n.t('refusal.byRule', { rule: i18n.formatNumber(result.rule + 1), tool: name }), reason: undefined };
  }
  if (result.by === SERVER) {
    if (result.reason === TIMED_OUT) return { line: i18n.t('refusal.timedOut', { tool: name }), reason: undefined };
    return { line: i18n.t('refusal.byServer', { tool: name }), reason: result.reason };
  }
  if (isOwn(result.by)) return { line: i18n.t('refusal.byYou', { tool: name }), reason: result.reason };
  if (isShareActor(result.by)) return { line: i18n.t('words.refusalByShareLink', { tool: name }), reason: result.reason };
  if (byName !== undefined) return { line: i18n.t('refusal.byName', { tool: name, name: byName }), reason: result.reason };
  return { line: i18n.t('refusal.byOther', { tool: name }), reason: result.reason };
}
