import { POLICY_DECIDER, describeRule, type ApprovalPolicy, type Step, type StepApproval } from '@interthought/protocol';
import type { ToolCatalog } from '../ports/tool-catalog.js';
import type { LiveSession } from '../sessions/live-session.js';
import { SessionError } from '../session-error.js';
import { callVerdict, type CallVerdict, type Refusal } from './approvals.js';

/*
 * Decisions nobody makes at the call (PROTOCOL.md §25.3, §25.4): a rule of the session's policy
 * allows or denies it, or an approval given once lets it run. What they put on the call's
 * `step.completed`, the refusal a deny records, and the correction a deny refuses.
 */

/** A verdict on a completed call, with the approval its `step.completed` carries when a standing decision made it. */
export interface JudgedCall extends CallVerdict {
  approval?: StepApproval;
}

/** The rule at `index` of the policy as people read it: `rule 3 (write_file: deny)`. */
function ruleName(policy: ApprovalPolicy | undefined, index: number | undefined): string {
  if (index === undefined) return 'rules';
  const rule = typeof policy === 'object' && !Array.isArray(policy) ? policy.rules[index] : undefined;
  return rule === undefined ? `rule ${index}` : `rule ${index} (${describeRule(rule)})`;
}

/** Why a rule refused a call, as its approval and its observation's result say. */
function denyReason(policy: ApprovalPolicy | undefined, rule: number | undefined): string {
  return `Refused by the session's ${ruleName(policy, rule)}.`;
}

/** The approval a standing decision puts on the call, at `at` (the time of its `step.completed`). */
function standingApproval(verdict: CallVerdict, policy: ApprovalPolicy | undefined, at: string): StepApproval | undefined {
  if (verdict.via === 'remembered' && verdict.remembered !== undefined) {
    const { by, byName, at: givenAt, stepId } = verdict.remembered;
    return { state: 'approved', via: 'remembered', by, ...(byName === undefined ? {} : { byName }), at: givenAt, from: stepId };
  }
  if (verdict.via !== 'rule' || verdict.rule === undefined) return undefined;
  if (verdict.decision === 'allow') return { state: 'approved', via: 'rule', rule: verdict.rule, by: POLICY_DECIDER, at };
  if (verdict.decision === 'deny') return { state: 'rejected', via: 'rule', rule: verdict.rule, by: POLICY_DECIDER, at, reason: denyReason(policy, verdict.rule) };
  return undefined;
}

/**
 * The session's verdict on the call `step` an agent just completed, with the approval its
 * `step.completed` (appended at `at`) carries: the one owner of the judgement, for every agent —
 * in process, a sub-agent, a remote worker's own tool (PROTOCOL.md §25, Part II §A6.1).
 */
export function judgeCall(session: LiveSession, step: Step, tools: ToolCatalog, at: string): JudgedCall {
  const verdict = callVerdict(session.options.approve, step.tool, step.content, tools, session.state.remembered);
  const approval = standingApproval(verdict, session.options.approve, at);
  return approval === undefined ? verdict : { ...verdict, approval };
}

/** The refusal a deny records: by the policy, naming the rule, as its observation says it (PROTOCOL.md §25.4). */
export function ruleRefusal(policy: ApprovalPolicy | undefined, call: Step, verdict: CallVerdict): Refusal {
  const tool = call.tool ?? '';
  const text = `The session's ${ruleName(policy, verdict.rule)} refused this ${tool} call, so it was not run.`;
  return { by: POLICY_DECIDER, ...(verdict.rule === undefined ? {} : { rule: verdict.rule }), reason: denyReason(policy, verdict.rule), text };
}

/**
 * A correction of a tool call is the user's, so it never waits (§19.1), but a rule still denies
 * it: `TOOL_DENIED` naming the rule, and nothing changes (§25.4).
 */
export function checkNotDenied(session: LiveSession, step: Step, content: string, tools: ToolCatalog): void {
  if (step.kind !== 'tool_call') return;
  const verdict = callVerdict(session.options.approve, step.tool, content, tools, session.state.remembered);
  if (verdict.decision !== 'deny') return;
  throw new SessionError(
    'TOOL_DENIED',
    `The session's ${ruleName(session.options.approve, verdict.rule)} denies this ${step.tool ?? ''} call, so the correction was not applied: change the input, or the session's rules.`,
  );
}
