import { ASK_USER_TOOL, decisionRefusal, policyVerdict, type ApprovalDecision, type ApprovalPolicy, type RefusalResult, type SessionEvent, type Step } from '@interthought/protocol';
import type { ToolCatalog } from '../ports/tool-catalog.js';
import type { LiveSession } from '../sessions/live-session.js';
import type { ReplyTo } from '../fanout/peer.js';
import { SessionError } from '../session-error.js';

/*
 * Approval before a tool runs (PROTOCOL.md §19 "Approvals"): which calls wait, the checks of a
 * decision, and the events that record asking and deciding. The session manager sequences them.
 */

/** Who decides when nobody did in time. */
export const TIMEOUT_DECIDER = 'server';
export const TIMEOUT_REASON = 'timed out';

/** The rejection the server makes of a call nobody decided in time (PROTOCOL.md §19.4 "Timeout"). */
export function timeoutRejection(sessionId: string, stepId: string): { sessionId: string; stepId: string; by: string; reason: string } {
  return { sessionId, stepId, by: TIMEOUT_DECIDER, reason: TIMEOUT_REASON };
}

/**
 * Whether a completed call of `toolName` waits for the user under `policy`. Without a policy the
 * tool's own declaration decides: one that changes something waits, one that only reads does not
 * (an unknown tool cannot run at all, so there is nothing to approve).
 */
export function needsApproval(policy: ApprovalPolicy | undefined, toolName: string | undefined, tools: ToolCatalog, input?: unknown): boolean {
  // Asking the user is already a stop: no policy applies to `ask_user` (PROTOCOL.md §25.1).
  if (toolName === undefined || toolName === ASK_USER_TOOL) return false;
  // Until a deny is carried out as a refusal, a call the rules deny waits like one they ask about: it never runs unasked.
  return policyVerdict(policy, toolName, input, tools.get(toolName)?.effect === 'change').decision !== 'allow';
}

/** A tool call's input as `approval.requested` shows it: its JSON content parsed, or the raw text. */
function proposedInput(step: Step): unknown {
  try {
    return JSON.parse(step.content) as unknown;
  } catch {
    return step.content;
  }
}

/** Record that the completed tool call `step` waits for the user (`approval.requested`). */
export function appendApprovalRequested(session: LiveSession, step: Step): void {
  const requested: SessionEvent = { type: 'approval.requested', ...session.nextBase(), stepId: step.stepId, tool: step.tool ?? '', input: proposedInput(step) };
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
  if (session.status === 'cancelled') {
    throw new SessionError('SESSION_CANCELLED', `Session ${session.id} is cancelled; its tool calls can no longer be decided.`);
  }
  const step = session.state.steps.get(stepId);
  const refusal = decisionRefusal(session.state, stepId);
  if (step === undefined || refusal === 'not_found') {
    throw new SessionError('STEP_NOT_FOUND', `Session ${session.id} has no step ${stepId}. Subscribe again to get the current steps.`);
  }
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
  session.append(resolved, reply);
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
export function appendRefusalObservation(session: LiveSession, call: Step, by: string, reason: string | undefined, stepId: string): void {
  const tool = call.tool ?? '';
  const content = refusalText(tool, by, reason);
  const result: RefusalResult = { refused: true, by };
  if (reason !== undefined) result.reason = reason;
  session.append({
    type: 'step.started',
    ...session.nextBase(),
    step: {
      stepId,
      parentId: call.stepId,
      index: call.index + 1,
      kind: 'observation',
      status: 'streaming',
      content: '',
      revision: session.state.session.revision,
      tool,
      ...(call.scope === undefined ? {} : { scope: call.scope }),
    },
  });
  session.append({ type: 'step.completed', ...session.nextBase(), stepId, content, tool, result });
}
