import { isActive } from '@interthought/protocol';
import type { SessionEngine } from '../sessions/session-engine.js';
import type { ReplyTo } from '../fanout/peer.js';
import type { AnswerInput } from '../session-service.js';
import { TIMEOUT_DECIDER } from './approvals.js';
import { appendAnswerObservation, appendInputResolved, checkAnswer, checkAnswerText, type Answer } from './questions.js';
import { checkBudget } from './token-budget.js';
import { inOneTurn } from './in-one-turn.js';
import { UNKNOWN_DECIDER, byNameOf } from './decider.js';

/**
 * Answer the question an `ask_user` call waits on, as one atomic turn once the session is loaded
 * (PROTOCOL.md §25.2): `input.resolved`, `running`, the answer's observation, and a new run that
 * goes on after it. Closed by the server instead (`timedOut`), the observation says nobody answered.
 * Answers of one session apply one at a time: of two at once, the second finds the question answered.
 */
export async function provideInput(engine: SessionEngine, input: AnswerInput, reply: ReplyTo | undefined): Promise<void> {
  const timedOut = input.timedOut === true;
  const text = timedOut ? undefined : checkAnswerText(input.text);
  await engine.open();
  const session = await engine.require(input.sessionId);
  inOneTurn(() => {
    const call = checkAnswer(session, input.stepId);
    const agent = engine.requireAgent(session.state.session.agent);
    // A question of a sub-agent may be answered while the rest of the session runs (§24.5): it holds its slot already.
    const reviving = !isActive(session.status);
    // A timeout closes a wait the session already held a slot for: it is not refused for room.
    if (reviving && !timedOut) engine.checkCapacity(input.quota);
    checkBudget(session.state, session.options, engine.maxTokensPerSession);
    engine.timers.disarmDeadline(session.id);
    if (reviving) session.countAgainst(input.quota?.key);
    const answer: Answer = timedOut
      ? { call, outcome: 'timed_out', by: TIMEOUT_DECIDER }
      : { call, outcome: 'answered', by: input.by ?? UNKNOWN_DECIDER, ...byNameOf(input), text: text! };
    appendInputResolved(session, answer, reply);
    if (session.status === 'waiting') session.setStatus('running');
    if (call.scope !== undefined) engine.subagents.reopen(session, call.scope);
    appendAnswerObservation(session, answer, engine.newId());
    if (call.scope === undefined) engine.startRun(session, agent);
    else engine.subagents.drive(session, call.scope);
    // Another wait of the session (a sub-agent's call or question) may have its clock run now: one per session.
    engine.timers.armDeadlineOf(session.state, session.options);
    engine.inUse(session);
  });
}
