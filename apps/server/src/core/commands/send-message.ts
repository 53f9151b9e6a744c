import { allowsMessage, pendingQuestions } from '@interthought/protocol';
import type { SessionEngine } from '../sessions/session-engine.js';
import { isActive } from '@interthought/protocol';
import type { ReplyTo } from '../fanout/peer.js';
import { answerIfAsked } from '../fanout/answer.js';
import { SessionError } from '../session-error.js';
import type { MessageInput, MessageResult } from '../session-service.js';
import { appendQueuedMessage, appendUserMessage, applyQueuedMessages, atStepBoundary } from './conversation.js';
import { checkMessageMode, checkMessageText } from './session-input.js';
import { checkBudget } from './token-budget.js';
import { inOneTurn } from './in-one-turn.js';

/**
 * `session.message` (PROTOCOL.md §20.2): on a finished session a new turn starts; while it runs, a
 * `steer` message reaches the chain at the next step boundary and a `queue` one when the turn ends.
 * The requester gets `message.accepted` before the events the message causes.
 */
export async function sendMessage(engine: SessionEngine, input: MessageInput, reply: ReplyTo | undefined): Promise<MessageResult> {
  await engine.open();
  const text = checkMessageText(input.text);
  const mode = checkMessageMode(input.mode);
  const session = await engine.require(input.sessionId);
  return inOneTurn(() => {
    if (!allowsMessage(session.status)) {
      // While a question waits, the answer is what the agent waits for (PROTOCOL.md §25.2).
      const asked = pendingQuestions(session.state).length > 0;
      throw new SessionError(
        'INVALID_STATE',
        asked
          ? `Session ${session.id} waits for the answer to the agent's question: answer it (input.provide) first, or correct an earlier step.`
          : `Session ${session.id} waits for a decision on a tool call: approve or reject it first (a rejection's reason tells the agent what to do instead).`,
      );
    }
    checkBudget(session.state, session.options, engine.maxTokensPerSession);
    const stepId = engine.newId();
    const accepted = (queued: boolean): MessageResult => {
      const result = { sessionId: session.id, stepId, queued };
      answerIfAsked(reply, { type: 'message.accepted', ...result });
      return result;
    };
    const run = session.run;
    if (run === undefined && !isActive(session.status)) {
      // A finished session (or a fork): a new turn with the whole chain as context.
      const agent = engine.requireAgent(session.state.session.agent);
      engine.checkCapacity(input.quota);
      session.countAgainst(input.quota?.key);
      const result = accepted(false);
      session.finishDanglingHead();
      applyQueuedMessages(session);
      appendUserMessage(session, stepId, text, input);
      session.setStatus('running');
      engine.startRun(session, agent);
      engine.inUse(session);
      return result;
    }
    if (mode === 'steer' && run !== undefined && session.state.queued.length === 0 && atStepBoundary(session)) {
      // Between steps: the message goes on now, and a new run takes it into account.
      const agent = engine.requireAgent(session.state.session.agent);
      const result = accepted(false);
      run.abort('the user sent a message');
      appendUserMessage(session, stepId, text, input);
      engine.startRun(session, agent);
      return result;
    }
    const result = accepted(true);
    appendQueuedMessage(session, stepId, text, mode, input);
    return result;
  });
}
