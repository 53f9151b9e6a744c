import type { SessionDeletedEvent, ShareRecord } from '@interthought/protocol';
import type { SessionEngine } from '../sessions/session-engine.js';
import type { ReplyTo } from '../fanout/peer.js';
import type { CommandOp } from '../ports/session-placement.js';
import type { AnswerInput, CorrectStepInput, CorrectionResult, DecideInput, ForgetApprovalsInput, MessageInput, MessageResult, ShareInput, UnshareInput } from '../session-service.js';
import { correctStep } from './correct-step.js';
import { decideCall } from './decide-call.js';
import { forgetApprovals } from './forget-approvals.js';
import { provideInput } from './provide-input.js';
import { cancelSession, pauseSession, resumeSession } from './lifecycle.js';
import { cancelSubagent } from './cancel-subagent.js';
import { sendMessage } from './send-message.js';
import { shareSession, unshareSession } from './share-links.js';

/** What each command takes besides its session, and what it gives back. */
export interface CommandTypes {
  correct: { input: Omit<CorrectStepInput, 'sessionId'>; result: CorrectionResult };
  approve: { input: Omit<DecideInput, 'sessionId'>; result: void };
  reject: { input: Omit<DecideInput, 'sessionId'>; result: void };
  answer: { input: Omit<AnswerInput, 'sessionId'>; result: void };
  forgetApprovals: { input: Omit<ForgetApprovalsInput, 'sessionId'>; result: void };
  message: { input: Omit<MessageInput, 'sessionId'>; result: MessageResult };
  share: { input: Omit<ShareInput, 'sessionId'>; result: ShareRecord };
  unshare: { input: Omit<UnshareInput, 'sessionId'>; result: void };
  pause: { input: undefined; result: void };
  resume: { input: undefined; result: void };
  cancel: { input: undefined; result: void };
  cancelSubagent: { input: { scope: string }; result: void };
  delete: { input: undefined; result: SessionDeletedEvent };
}

/** One command of the table: run by the engine of the process the session is placed on. */
export type CommandRun<K extends CommandOp> = (engine: SessionEngine, sessionId: string, reply: ReplyTo | undefined, input: CommandTypes[K]['input']) => Promise<CommandTypes[K]['result']>;

/** The commands the engine runs on a session placed here (deletion is the service's: it also tells the list and the other nodes). */
export const COMMANDS: { readonly [K in Exclude<CommandOp, 'delete'>]: CommandRun<K> } = {
  correct: (engine, sessionId, reply, input) => correctStep(engine, { ...input, sessionId }, reply),
  approve: (engine, sessionId, reply, input) => decideCall(engine, { ...input, sessionId }, 'approved', reply),
  reject: (engine, sessionId, reply, input) => decideCall(engine, { ...input, sessionId }, 'rejected', reply),
  answer: (engine, sessionId, reply, input) => provideInput(engine, { ...input, sessionId }, reply),
  forgetApprovals: (engine, sessionId, reply, input) => forgetApprovals(engine, { ...input, sessionId }, reply),
  message: (engine, sessionId, reply, input) => sendMessage(engine, { ...input, sessionId }, reply),
  share: (engine, sessionId, _reply, input) => shareSession(engine, { ...input, sessionId }),
  unshare: (engine, sessionId, _reply, input) => unshareSession(engine, { ...input, sessionId }),
  pause: (engine, sessionId, reply) => pauseSession(engine, sessionId, reply),
  resume: (engine, sessionId, reply) => resumeSession(engine, sessionId, reply),
  cancel: (engine, sessionId, reply) => cancelSession(engine, sessionId, reply),
  cancelSubagent: (engine, sessionId, reply, input) => cancelSubagent(engine, sessionId, input.scope, reply),
};
