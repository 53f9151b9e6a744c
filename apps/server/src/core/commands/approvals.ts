import {
  ASK_USER_TOOL,
  decisionRefusal,
  policyVerdict,
  type ApprovalDecision,
  type ApprovalPolicy,
  type RefusalResult,
  type RememberedApproval,
  type SessionEvent,
  type Step,
} from '@interthought/protocol';
import type { ToolCatalog } from '../ports/tool-catalog.js';
import type { LiveSession } from '../sessions/live-session.js';
import type { ReplyTo } from '../fanout/peer.js';
import { SessionError } from '../session-error.js';
import { appendWholeObservation, judgeAwaitedStep } from './awaited-step.js';

/*
 * Approval before a tool runs (PROTOCOL.md §19 "Approvals"): which calls wait, the checks of a
 * decision, and the events that record asking and deciding. The session manager sequences them.
 */

/**
 * The head of `scope`'s chain when it is a call nobody decided whose tool never ran: a run that
 * starts there judges it as a call that just completed would be (§19.1), so no run ever runs a call
 * the policy holds without a decision. A fork copies a pending approval as no approval at all
 * (§20.4), so a resumed fork asks again. A corrected call is the user's and never waits (§19.1).
 */
export function undecidedCall(session: LiveSession, scope: string | undefined): Step | undefined {
  const head = session.head(scope);
  if (head === undefined || head.kind !== 'tool_call' || head.status !== 'completed') return undefined;
  return head.approval === undefined && head.tool !== ASK_USER_TOOL ? head : undefined;
}

/** Who decides when nobody did in time. */
export const TIMEOUT_DECIDER = 'server';
export const TIMEOUT_REASON = 'timed out';

/** The rejection the server makes of a call nobody decided in time (PROTOCOL.md §19.4 "Timeout"). */
export function timeoutRejection(sessionId: string, stepId: string): { sessionId: string; stepId: string; by: string; reason: string } {
  return { sessionId, stepId, by: TIMEOUT_DECIDER, reason: TIMEOUT_REASON };
}

/** What the session's policy does with a completed call, and what decided it without asking (PROTOCOL.md §19.1, §25.3, §25.4). */
export interface CallVerdict {
  /** `allow`: it runs; `ask`: it waits for the user (§19.2); `deny`: it is refused without running (§25.4). */
  decision: 'allow' | 'ask' | 'deny';
  /** A decision nobody made at the call: a rule of the policy, or an approval remembered for the tool. */
  via?: 'rule' | 'remembered';
  /** The index of the rule that decided, with `via: 'rule'`. */
  rule?: number;
  /** The approval given once for the tool, with `via: 'remembered'`. */
  remembered?: RememberedApproval;
}

/**
 * The verdict on a completed call of `toolName` with `content` (its input as text), from the one
 * evaluator (`policyVerdict`): without a policy the tool's own declaration decides, one that
 * changes something asks (an unknown tool, a worker's own, does not). A call the policy would
 * make wait runs when its tool was approved once for the session; a deny is never overridden.
 * `ask_user` is always allowed here: asking is a stop of its own (§25.1).
 */
export function callVerdict(
  policy: ApprovalPolicy | undefined,
  toolName: string | undefined,
  content: string,
  tools: ToolCatalog,
  remembered: ReadonlyMap<string, RememberedApproval>,
): CallVerdict {
  if (toolName === undefined || toolName === ASK_USER_TOOL) return { decision: 'allow' };
  const verdict = policyVerdict(policy, toolName, callInput(content), tools.get(toolName)?.effect === 'change');
  if (verdict.decision === 'ask') {
    const given = remembered.get(toolName);
    return given === undefined ? { decision: 'ask' } : { decision: 'allow', via: 'remembered', remembered: given };
  }
  return verdict.rule === undefined ? { decision: verdict.decision } : { decision: verdict.decision, via: 'rule', rule: verdict.rule };
}

/** A tool call's input as `approval.requested` shows it and rules read it: its JSON content parsed, or the raw text. */
export function callInput(content: string): unknown {
  try {
    return JSON.parse(content) as unknown;
  } catch {
    return content;
  }
}

/** Record that the completed tool call `step` waits for the user (`approval.requested`). */
export function appendApprovalRequested(session: LiveSession, step: Step): void {
  const requested: SessionEvent = { type: 'approval.requested', ...session.nextBase(), stepId: step.stepId, tool: step.tool ?? '', input: callInput(step.content) };
  session.append(requested);
}

/** Record that the completed tool call `step` waits for the user, and make the session wait. */
export function appendApprovalRequest(session: LiveSession, step: Step): void {
  appendApprovalRequested(session, step);
  session.setStatus('waiting', { detail: `Waiting for approval: ${step.tool ?? ''}` });
}

/**
 * The pending tool call `stepId` names, or a `SessionError` saying why it cannot be decided, in
 * the order of §19.3 "Deciding".
 */
export function checkDecision(session: LiveSession, stepId: string): Step {
  const { step, refusal } = judgeAwaitedStep(session, stepId, decisionRefusal, 'its tool calls can no longer be decided.');
  switch (refusal) {
    case undefined:
      return step;
    case 'not_a_tool_call':
      throw new SessionError('APPROVAL_NOT_PENDING', `Step ${stepId} is a ${step.kind}, not a tool call: only tool calls wait for approval.`);
    case 'not_requested':
      throw new SessionError('APPROVAL_NOT_PENDING', `No approval was asked for tool call ${stepId}: it ran (or will run) without one.`);
    case 'already_decided': {
      const { approval } = step;
      const who = approval?.by === TIMEOUT_DECIDER ? 'by the server (no decision in time)' : `by ${approval?.byName ?? approval?.by ?? 'someone'}`;
      throw new SessionError('APPROVAL_NOT_PENDING', `Tool call ${stepId} was already ${approval?.state ?? 'decided'} ${who}${approval?.at ? ` at ${approval.at}` : ''}.`);
    }
    case 'invalidated':
      throw new SessionError('STEP_INVALIDATED', `Tool call ${stepId} was invalidated by a correction, so it will never run; there is nothing to decide.`);
    case 'session_not_waiting':
      throw new SessionError('APPROVAL_NOT_PENDING', `Session ${session.id} is ${session.status}, not waiting for a decision on ${stepId}.`);
  }
}

export interface Decision {
  step: Step;
  decision: ApprovalDecision;
  by: string;
  /** The decider's display name, when the server tells users apart. */
  byName?: string;
  reason?: string;
  /** The approval also holds for later calls of the tool in this session (PROTOCOL.md §25.3; approvals only). */
  remember?: 'session';
}

/** Append `approval.resolved`; the requester's copy (with `requestId`) answers its request. */
export function appendDecision(session: LiveSession, decision: Decision, reply?: ReplyTo): void {
  const resolved: SessionEvent = {
    type: 'approval.resolved',
    ...session.nextBase(),
    stepId: decision.step.stepId,
    decision: decision.decision,
    by: decision.by,
  };
  if (decision.byName !== undefined) resolved.byName = decision.byName;
  if (decision.reason !== undefined) resolved.reason = decision.reason;
  if (decision.remember !== undefined && decision.decision === 'approved') resolved.remember = decision.remember;
  session.append(resolved, reply);
}

/** Who refused a call, and why: a user, the server (a timeout), or a rule of the policy (`POLICY_DECIDER`, PROTOCOL.md §25.4). */
export interface Refusal {
  by: string;
  reason?: string;
  /** The index of the rule that refused it. */
  rule?: number;
  /** What the observation says; by default, said for a user's or the timeout's refusal. */
  text?: string;
}

/** What the refusal observation says, for people and for the agent that reads it as the tool's result. */
function refusalText(tool: string, by: string, reason: string | undefined): string {
  if (by === TIMEOUT_DECIDER) return `The ${tool} call was not approved in time, so it was not run.`;
  return `The user refused this ${tool} call, so it was not run.${reason === undefined ? '' : ` Reason: ${reason}`}`;
}

/**
 * Append the observation that records a refused call on the head of the chain: a whole step at
 * once (the tool never ran, so nothing streams), its `result` marked `refused`.
 */
export function appendRefusalObservation(session: LiveSession, call: Step, refusal: Refusal, stepId: string): void {
  const tool = call.tool ?? '';
  const content = refusal.text ?? refusalText(tool, refusal.by, refusal.reason);
  const result: RefusalResult = { refused: true, by: refusal.by };
  if (refusal.rule !== undefined) result.rule = refusal.rule;
  if (refusal.reason !== undefined) result.reason = refusal.reason;
  appendWholeObservation(session, call, { stepId, tool, content, result });
}
