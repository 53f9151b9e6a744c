import type { MessageMode, Origin, SessionState, Step } from '@interthought/protocol';
import type { LiveSession } from '../sessions/live-session.js';
import { SessionError } from '../session-error.js';

/*
 * The user's turns on the chain (PROTOCOL.md §20 "Conversations"): when a message may reach the
 * chain, the events that put it there, and the copy of a path a fork starts from. The session
 * manager sequences them with the runs.
 */

/**
 * A step boundary (§20.2): no step streams, and the head is not a tool call whose observation is
 * still to come. Only there can a message go on the chain without cutting the agent's work in two.
 */
export function atStepBoundary(session: LiveSession): boolean {
  const head = session.head();
  return head === undefined || (head.status !== 'streaming' && head.kind !== 'tool_call');
}

/** Who wrote a message: a user id (or connection id) and, with users, their name. */
export interface Author {
  by?: string | undefined;
  byName?: string | undefined;
}

/** The author fields a step or event carries: only those known. */
function authorFields(author: Author): Author {
  return { ...(author.by === undefined ? {} : { by: author.by }), ...(author.byName === undefined ? {} : { byName: author.byName }) };
}

/** Put the user's message on the head of the chain as a `user_message` step (`stepId` is the one its acceptance named). */
export function appendUserMessage(session: LiveSession, stepId: string, text: string, author: Author = {}): void {
  const head = session.head();
  session.append({
    type: 'step.started',
    ...session.nextBase(),
    step: {
      stepId,
      parentId: head?.stepId ?? null,
      index: session.state.chain.length,
      kind: 'user_message',
      status: 'streaming',
      content: '',
      revision: session.state.session.revision,
      ...authorFields(author),
    },
  });
  session.append({ type: 'step.completed', ...session.nextBase(), stepId, content: text });
}

/** Record a message that waits for a step boundary (`steer`) or for the end of the turn (`queue`). */
export function appendQueuedMessage(session: LiveSession, stepId: string, text: string, mode: MessageMode, author: Author = {}): void {
  session.append({ type: 'message.queued', ...session.nextBase(), stepId, text, mode, ...authorFields(author) });
}

/** Put the waiting messages on the chain in the order they were sent: those of `mode`, or all. Returns how many. */
export function applyQueuedMessages(session: LiveSession, mode?: MessageMode): number {
  const due = session.state.queued.filter((message) => mode === undefined || message.mode === mode);
  for (const message of due) appendUserMessage(session, message.stepId, message.text, message);
  return due.length;
}

/** The path from the first step of its scope's tree to `stepId`, first step first; `STEP_NOT_FOUND` for an unknown step. */
export function pathTo(state: SessionState, sessionId: string, stepId: string): Step[] {
  const path: Step[] = [];
  let step = state.steps.get(stepId);
  if (step === undefined) throw new SessionError('STEP_NOT_FOUND', `Session ${sessionId} has no step ${stepId} to fork from.`);
  while (step !== undefined) {
    path.unshift(step);
    step = step.parentId === null ? undefined : state.steps.get(step.parentId);
  }
  return path;
}

/**
 * Copies of `path` for a fork (§20.4): each step with a new id, under the copy before it,
 * finished (a streaming step keeps what it had), at revision 0, naming its origin; in `scope`
 * (a sub-agent's scope in the fork, PROTOCOL.md §24.7) or the fork's own chain when absent.
 */
export function copiedSteps(source: SessionState, path: readonly Step[], newId: (original: Step) => string, scope?: string): Step[] {
  const sessionId = source.session.sessionId;
  let parentId: string | null = null;
  return path.map((original) => {
    // A copy carries no usage: the source paid for its calls (PROTOCOL.md §22.1).
    const { stepId: originalId, correctionOf: _replaced, approval, question, status, usage: _paid, scope: _scope, ...kept } = original;
    const origin: Origin = { sessionId, stepId: originalId };
    const copy: Step = { ...kept, stepId: newId(original), parentId, status: status === 'corrected' ? 'corrected' : 'completed', revision: 0, copiedFrom: origin };
    if (scope !== undefined) copy.scope = scope;
    // A decision stays part of the trail; a pending one belongs to the source's waiting session.
    if (approval !== undefined && approval.state !== 'pending') copy.approval = approval;
    // So does a question's answer (PROTOCOL.md §25.1); a question still waiting is the source's to answer.
    if (question !== undefined && question.state !== 'pending') copy.question = question;
    parentId = copy.stepId;
    return copy;
  });
}

/** The copies a fork starts with (§20.4): the path to `stepId` (see `copiedSteps`). */
export function copiedPath(source: SessionState, stepId: string, newId: () => string): Step[] {
  return copiedSteps(source, pathTo(source, source.session.sessionId, stepId), () => newId());
}
