import type { SubagentInfo } from '@interthought/protocol';
import type { SessionEngine } from '../sessions/session-engine.js';
import type { LiveSession } from '../sessions/live-session.js';
import type { ReplyTo } from '../fanout/peer.js';
import { validSubagents } from '../subagents/subagent-runs.js';
import { headIsStop } from '../run/breakpoint-stop.js';
import { applyQueuedMessages } from './conversation.js';

/*
 * `session.resume` of a session a breakpoint stopped (PROTOCOL.md §25.5): the stopped agent goes
 * on from its chain, whose head is the step it stopped at (or the user's correction of it). A
 * stop holds no run of its agent, so what is stopped is a chain without a run: the session's own
 * (`lifecycle.ts` starts it, as after a restart), or a sub-agent still `running` without one.
 */

/** Whether the stop of `scope` is at a final answer: there is nothing left for its run to do. */
function stoppedAtAnswer(session: LiveSession, scope?: string): boolean {
  return headIsStop(session, scope) && session.head(scope)?.kind === 'final_answer';
}

/**
 * The sub-agents a breakpoint stopped: still `running` and valid, with no live run of their own,
 * and their head the stop. (A scope its parent's own agent opened has no run of its own either,
 * and runs on with its parent: its head is no stop unless a breakpoint made it one.)
 */
function stoppedScopes(session: LiveSession): SubagentInfo[] {
  return validSubagents(session).filter((info) => info.status === 'running' && session.runs.of(info.scope)?.live !== true && headIsStop(session, info.scope));
}

/**
 * A sub-agent stopped at its final answer ends as its run would have: `completed`, its outcome
 * to the delegate call waiting for it (or stored, for a parent that runs again after a restart).
 */
export function finishAnsweredStops(engine: SessionEngine, session: LiveSession): void {
  for (const info of stoppedScopes(session)) if (stoppedAtAnswer(session, info.scope)) engine.subagents.finishAnswered(session, info.scope);
}

/** The other stopped sub-agents run again from their chains: a stopped call's tool runs first (the agent runs an unanswered call). */
export function driveStoppedScopes(engine: SessionEngine, session: LiveSession): void {
  for (const info of stoppedScopes(session)) engine.subagents.drive(session, info.scope);
}

/**
 * The session's own agent stopped at its final answer, with nothing else running: its turn ends as
 * it would have, `completed`, or the next queued message starts a new one. False when that is not
 * where the session is, and the run starts as usual.
 */
export function endTurnAtAnswer(engine: SessionEngine, session: LiveSession, reply: ReplyTo | undefined): boolean {
  if (session.hasRun || !stoppedAtAnswer(session)) return false;
  const requester = reply === undefined ? {} : { reply };
  if (session.state.queued.length === 0) {
    session.setStatus('completed', requester);
    return true;
  }
  const agent = engine.requireAgent(session.state.session.agent);
  session.setStatus('running', requester);
  applyQueuedMessages(session);
  engine.startRun(session, agent);
  engine.inUse(session);
  return true;
}
