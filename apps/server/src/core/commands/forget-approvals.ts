import type { SessionEvent } from '@interthought/protocol';
import type { SessionEngine } from '../sessions/session-engine.js';
import type { ReplyTo } from '../fanout/peer.js';
import type { ForgetApprovalsInput } from '../session-service.js';
import { SessionError } from '../session-error.js';
import { inOneTurn } from './in-one-turn.js';
import { UNKNOWN_DECIDER, byNameOf } from './decider.js';

/**
 * `approvals.forget` (PROTOCOL.md §9.20, §25.3): take back the approval remembered for `tool`, or
 * every one, in one turn of the session. The requester's copy of `approvals.forgotten` answers;
 * the reducer drops them from `SessionState.remembered`, so later calls of those tools ask again.
 */
export async function forgetApprovals(engine: SessionEngine, input: ForgetApprovalsInput, reply: ReplyTo | undefined): Promise<void> {
  await engine.open();
  const session = await engine.require(input.sessionId);
  inOneTurn(() => {
    const { remembered } = session.state;
    if (input.tool !== undefined && !remembered.has(input.tool)) {
      throw new SessionError('NOT_REMEMBERED', `No approval of ${input.tool} is remembered in session ${session.id}: its calls ask already (or never asked).`);
    }
    if (remembered.size === 0) throw new SessionError('NOT_REMEMBERED', `No approval is remembered in session ${session.id}: there is nothing to forget.`);
    const tools = input.tool === undefined ? [...remembered.keys()] : [input.tool];
    const forgotten: SessionEvent = { type: 'approvals.forgotten', ...session.nextBase(), tools, by: input.by ?? UNKNOWN_DECIDER, ...byNameOf(input) };
    session.append(forgotten, reply);
  });
}
