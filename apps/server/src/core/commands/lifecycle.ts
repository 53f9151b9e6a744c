import type { SessionEngine } from '../sessions/session-engine.js';
import { isActive } from '@interthought/protocol';
import type { ReplyTo } from '../fanout/peer.js';
import { applyQueuedMessages } from './conversation.js';
import { checkStatusRequest } from './status-rules.js';
import { checkBudget } from './token-budget.js';
import { inOneTurn } from './in-one-turn.js';
import { driveStoppedScopes, endTurnAtAnswer, finishAnsweredStops } from './breakpoint-resume.js';

/** The requester of a status change gets its copy of the `session.status` event, with `requestId`. */
function requester(reply: ReplyTo | undefined): { reply?: ReplyTo } {
  return reply === undefined ? {} : { reply };
}

/** `session.pause`: the run waits at its next token; stopped if it stays paused for the TTL. */
export async function pauseSession(engine: SessionEngine, sessionId: string, reply: ReplyTo | undefined): Promise<void> {
  await engine.open();
  const session = await engine.require(sessionId);
  inOneTurn(() => {
    checkStatusRequest(sessionId, 'pause', session.status);
    session.setStatus('paused', requester(reply));
    engine.timers.armPaused(session);
  });
}

/**
 * `session.resume`: a paused run goes on; a session without one (interrupted) continues from the
 * head of its chain, and its delegate calls give the outcomes of finished sub-agents at once and
 * run the others on from their scopes' chains (PROTOCOL.md §24.7). A stop at a breakpoint goes on
 * from its step (§25.5).
 */
export async function resumeSession(engine: SessionEngine, sessionId: string, reply: ReplyTo | undefined): Promise<void> {
  await engine.open();
  const session = await engine.require(sessionId);
  inOneTurn(() => {
    checkStatusRequest(sessionId, 'resume', session.status);
    checkBudget(session.state, session.options, engine.maxTokensPerSession);
    engine.timers.disarmPaused(session);
    finishAnsweredStops(engine, session);
    if (endTurnAtAnswer(engine, session, reply)) return;
    if (session.hasRun) {
      session.setStatus('running', requester(reply));
      driveStoppedScopes(engine, session);
      return;
    }
    const agent = engine.requireAgent(session.state.session.agent);
    if (!isActive(session.status)) {
      engine.checkCapacity(reply?.peer.quota);
      session.countAgainst(reply?.peer.quota?.key);
    }
    session.finishDanglingHead();
    session.setStatus('running', requester(reply));
    engine.startRun(session, agent);
    engine.inUse(session);
  });
}

/** `session.cancel`: the run stops for good; messages still waiting go on the chain, as the user's turns, without a run. */
export async function cancelSession(engine: SessionEngine, sessionId: string, reply: ReplyTo | undefined): Promise<void> {
  await engine.open();
  const session = await engine.require(sessionId);
  inOneTurn(() => {
    checkStatusRequest(sessionId, 'cancel', session.status);
    engine.stopRun(session, 'the session was cancelled');
    engine.subagents.endAll(session, 'cancelled');
    session.setStatus('cancelled', requester(reply));
    if (session.state.queued.length > 0) {
      session.finishDanglingHead();
      applyQueuedMessages(session);
    }
  });
}
