import type { ApprovalDecision } from '@interthought/protocol';
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
    // A timeout's rejection ends a wait the session already held a slot for: it is not refused for room.
    if (input.by !== TIMEOUT_DECIDER) engine.checkCapacity(input.quota);
    engine.timers.disarmDeadline(session.id);
    session.countAgainst(input.quota?.key);
    const by = input.by ?? UNKNOWN_DECIDER;
    appendDecision(session, { step: call, decision, by, ...byNameOf(input), ...(input.reason === undefined ? {} : { reason: input.reason }) }, reply);
    session.setStatus('running');
    if (decision === 'rejected') appendRefusalObservation(session, call, by, input.reason, engine.newId());
    engine.startRun(session, agent);
    engine.inUse(session);
  });
}
