import { isActive, type ApprovalDecision } from '@interthought/protocol';
import type { SessionEngine } from '../sessions/session-engine.js';
import type { ReplyTo } from '../fanout/peer.js';
import type { DecideInput } from '../session-service.js';
import { TIMEOUT_DECIDER, appendDecision, appendRefusalObservation, checkDecision } from './approvals.js';
import { checkReason } from './session-input.js';
import { checkBudget } from './token-budget.js';
import { inOneTurn } from './in-one-turn.js';
import { UNKNOWN_DECIDER, byNameOf } from './decider.js';

/**
 * Decide the call waiting for approval, as one atomic turn once the session is loaded: the
 * decision, `running`, for a rejection the observation that records it, and a new run, which
 * runs an approved call's tool or goes on after the refusal (PROTOCOL.md §19.3 "Deciding").
 */
export async function decideCall(engine: SessionEngine, input: DecideInput, decision: Exclude<ApprovalDecision, 'edited'>, reply: ReplyTo | undefined): Promise<void> {
  if (decision === 'rejected' && input.reason !== undefined) checkReason(input.reason);
  await engine.open();
  const session = await engine.require(input.sessionId);
  inOneTurn(() => {
    const call = checkDecision(session, input.stepId);
    checkBudget(session.state, session.options, engine.maxTokensPerSession);
    const agent = engine.requireAgent(session.state.session.agent);
    // A call of a sub-agent may be decided while the rest of the session runs (PROTOCOL.md §24.5): it holds its slot already.
    const reviving = !isActive(session.status);
    // A timeout's rejection ends a wait the session already held a slot for: it is not refused for room.
    if (reviving && input.by !== TIMEOUT_DECIDER) engine.checkCapacity(input.quota);
    engine.timers.disarmDeadline(session.id);
    if (reviving) session.countAgainst(input.quota?.key);
    const by = input.by ?? UNKNOWN_DECIDER;
    const remember = decision === 'approved' && input.remember !== undefined ? { remember: input.remember } : {};
    appendDecision(session, { step: call, decision, by, ...byNameOf(input), ...(input.reason === undefined ? {} : { reason: input.reason }), ...remember }, reply);
    if (session.status === 'waiting') session.setStatus('running');
    if (call.scope !== undefined) engine.subagents.reopen(session, call.scope);
    if (decision === 'rejected') appendRefusalObservation(session, call, { by, ...(input.reason === undefined ? {} : { reason: input.reason }) }, engine.newId());
    if (call.scope === undefined) engine.startRun(session, agent);
    else engine.subagents.drive(session, call.scope);
    // Another sub-agent's call may wait too: its clock runs now (one deadline per session at a time).
    engine.timers.armDeadlineOf(session.state, session.options);
    engine.inUse(session);
  });
}
