import type { SessionEngine } from '../sessions/session-engine.js';
import type { ReplyTo } from '../fanout/peer.js';
import { SessionError } from '../session-error.js';
import { isValidScope, validSubagents } from '../subagents/subagent-runs.js';
import { inOneTurn } from './in-one-turn.js';

/**
 * `subagent.cancel` (PROTOCOL.md §24.6), as one atomic turn: one running or waiting sub-agent stops
 * for good, `cancelled` (the requester's copy of that `subagent.status` is the answer); its
 * parent's delegate call gets that outcome and the parent goes on. Checks in the documented order.
 */
export async function cancelSubagent(engine: SessionEngine, sessionId: string, scope: string, reply: ReplyTo | undefined): Promise<void> {
  await engine.open();
  const session = await engine.require(sessionId);
  inOneTurn(() => {
    if (session.status === 'cancelled') {
      throw new SessionError('SESSION_CANCELLED', `Session ${sessionId} is cancelled; its sub-agents stopped with it.`);
    }
    const info = typeof scope === 'string' ? session.state.subagents.get(scope) : undefined;
    if (info === undefined) {
      throw new SessionError('STEP_NOT_FOUND', `Session ${sessionId} has no sub-agent ${String(scope)}: a sub-agent is named by its delegate call's step id.`);
    }
    if (!isValidScope(session, scope)) {
      throw new SessionError('INVALID_STATE', `Sub-agent ${scope} was invalidated by a correction: nothing of it runs any more.`);
    }
    if (info.status !== 'running' && info.status !== 'waiting') {
      throw new SessionError('INVALID_STATE', `Sub-agent ${scope} is ${info.status}; only a running or waiting sub-agent can be cancelled.`);
    }
    const wasWaiting = session.status === 'waiting';
    engine.subagents.cancel(session, scope, reply);
    // Nothing waits for a decision any more: the session runs again, and its parent goes on from the batch.
    if (wasWaiting && !validSubagents(session).some((other) => other.status === 'waiting')) session.setStatus('running');
    if (session.status === 'running') engine.subagents.drive(session, info.parentScope);
    engine.inUse(session);
  });
}
