import { decisionRefusal } from '@interthought/protocol';
import type { SessionEngine } from '../sessions/session-engine.js';
import { isActive } from '@interthought/protocol';
import type { ReplyTo } from '../fanout/peer.js';
import { answerIfAsked } from '../fanout/answer.js';
import type { CorrectStepInput, CorrectionResult } from '../session-service.js';
import { planInvalidation } from '../subagents/scope-invalidation.js';
import { appendDecision } from './approvals.js';
import { appendCorrection, checkCorrection } from './correction.js';
import { checkBudget } from './token-budget.js';
import { inOneTurn } from './in-one-turn.js';
import { UNKNOWN_DECIDER, byNameOf } from './decider.js';
import { isBreakpointStop } from '../run/breakpoint-stop.js';

/**
 * `step.correct`, as one atomic turn of the session (PROTOCOL.md §7 "Correction semantics"). A
 * step of a sub-agent's scope (§24.4) stops only that sub-agent (and the sub-agents its invalidated
 * steps started, and a parent that had moved past the batch); siblings go on untouched.
 */
export async function correctStep(engine: SessionEngine, input: CorrectStepInput, reply: ReplyTo | undefined): Promise<CorrectionResult> {
  await engine.open();
  const session = await engine.require(input.sessionId);
  return inOneTurn(() => {
    const target = checkCorrection(session, input, engine.tools);
    checkBudget(session.state, session.options, engine.maxTokensPerSession);
    const agent = engine.requireAgent(session.state.session.agent);
    const reviving = !isActive(session.status);
    if (reviving) engine.checkCapacity(input.quota);
    // A correction of the call that waits for approval is its edit: the decision is recorded first, and the edited call runs.
    const editing = decisionRefusal(session.state, target.stepId) === undefined;
    // The step a breakpoint stopped at is edited before it runs: it runs on `session.resume` (PROTOCOL.md §25.5).
    const atStop = isBreakpointStop(session, target);
    const plan = planInvalidation(session.state, target);
    if (target.scope === undefined) engine.stopRun(session, 'a step was corrected');
    else for (const scope of plan.stoppedScopes) session.runs.of(scope)?.abort('a step was corrected');
    if (reviving) session.countAgainst(input.quota?.key);
    const by = input.by ?? UNKNOWN_DECIDER;
    if (editing) appendDecision(session, { step: target, decision: 'edited', by, ...byNameOf(input) });
    const newStepId = engine.newId();
    const revision = appendCorrection(session, {
      target,
      newStepId,
      content: input.content,
      ...(input.note === undefined ? {} : { note: input.note }),
      ...(input.by === undefined ? {} : { by: input.by }),
      ...byNameOf(input),
      ...(editing ? { approval: { state: 'edited', by, ...byNameOf(input), at: session.nextBase().at } } : {}),
      invalidated: plan.stepIds,
    });
    const result: CorrectionResult = { sessionId: session.id, stepId: target.stepId, newStepId, revision };
    // Its events are sent only once written, after this turn: the answer always comes first.
    answerIfAsked(reply, { type: 'correction.accepted', ...result });
    if (target.scope !== undefined) {
      engine.subagents.reopen(session, target.scope);
      for (const scope of plan.reopened) engine.subagents.reopen(session, scope);
    }
    if (reviving || session.status === 'waiting') session.setStatus('running');
    if (atStop) {
      // Nothing runs while paused here: resume starts the agent on the corrected head.
    } else if (target.scope === undefined) engine.startRun(session, agent);
    else engine.subagents.drive(session, target.scope);
    engine.inUse(session);
    return result;
  });
}
