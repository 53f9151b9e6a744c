import { POLICY_DECIDER, type CorrectionRecord, type SessionEvent, type SessionState, type Step } from '@interthought/protocol';
import type { IndexedCorrection } from './correction-index.js';

/*
 * The one owner of "what is a correction" (PROTOCOL.md §26.1). Read with the session's state
 * just after the event was folded in, by the outbox as the event is queued and by the rebuild
 * as it replays a log: the same event gives the same record either way.
 */

/** Who refuses a call without being a person judging it: the server's approval timeout, a rule. */
const NOT_A_JUDGEMENT: ReadonlySet<string> = new Set(['server', POLICY_DECIDER]);

/** The session's fields every record repeats. */
function sessionFields(state: SessionState): Pick<CorrectionRecord, 'task' | 'agent' | 'model'> {
  const { task, agent, model } = state.session;
  return model === undefined ? { task, agent } : { task, agent, model };
}

function withOwner(state: SessionState, record: CorrectionRecord): IndexedCorrection {
  const ownerId = state.session.owner?.id;
  return ownerId === undefined ? { record } : { record, ownerId };
}

/** `step.corrected` of an agent's step (a `user_message` edit is the user changing their request). */
function editOf(state: SessionState, step: Step): IndexedCorrection | undefined {
  const replaced = step.correctionOf === undefined ? undefined : state.steps.get(step.correctionOf);
  const info = step.correction;
  if (replaced === undefined || info === undefined || replaced.kind === 'user_message') return undefined;
  // The lessons step is the server's guidance, not the agent's work: correcting it is no verdict on the agent.
  if (replaced.lessons !== undefined) return undefined;
  const tool = replaced.tool ?? step.tool;
  const record: CorrectionRecord = {
    sessionId: state.session.sessionId,
    stepId: replaced.stepId,
    correctedStepId: step.stepId,
    index: replaced.index,
    kind: replaced.kind,
    ...(tool === undefined ? {} : { tool }),
    ...(replaced.scope === undefined ? {} : { scope: replaced.scope }),
    correction: step.approval?.state === 'edited' ? 'approval_edited' : 'edited',
    before: info.previousContent,
    after: step.content,
    ...(info.note === undefined ? {} : { note: info.note }),
    by: info.by ?? 'unknown',
    ...(info.byName === undefined ? {} : { byName: info.byName }),
    at: info.at,
    ...sessionFields(state),
  };
  return withOwner(state, record);
}

/** The refusal's observation of a call a person rejected while it waited for approval. */
function refusalOf(state: SessionState, observation: Step): IndexedCorrection | undefined {
  if (observation.kind !== 'observation' || observation.parentId === null) return undefined;
  const call = state.steps.get(observation.parentId);
  const approval = call?.approval;
  if (call === undefined || call.kind !== 'tool_call' || approval?.state !== 'rejected' || approval.by === undefined) return undefined;
  if (NOT_A_JUDGEMENT.has(approval.by) || approval.at === undefined) return undefined;
  const record: CorrectionRecord = {
    sessionId: state.session.sessionId,
    stepId: call.stepId,
    correctedStepId: observation.stepId,
    index: call.index,
    kind: 'tool_call',
    ...(call.tool === undefined ? {} : { tool: call.tool }),
    ...(call.scope === undefined ? {} : { scope: call.scope }),
    correction: 'rejected',
    before: call.content,
    after: approval.reason ?? '',
    by: approval.by,
    ...(approval.byName === undefined ? {} : { byName: approval.byName }),
    at: approval.at,
    ...sessionFields(state),
  };
  return withOwner(state, record);
}

/** The corrections `event` makes, given the state with `event` already applied (none for most events). */
export function correctionsOf(event: SessionEvent, state: SessionState): IndexedCorrection[] {
  if (event.type === 'step.corrected') {
    const edit = editOf(state, state.steps.get(event.step.stepId) ?? event.step);
    return edit === undefined ? [] : [edit];
  }
  if (event.type === 'step.completed') {
    const step = state.steps.get(event.stepId);
    const refusal = step === undefined ? undefined : refusalOf(state, step);
    return refusal === undefined ? [] : [refusal];
  }
  return [];
}

/**
 * Every correction a session's state holds, as the rebuild finds them in a log written before the
 * index: the same records the events gave one by one. Steps a fork or an import copied count in
 * the session where they were made (§26.1), not here.
 */
export function correctionsInState(state: SessionState): IndexedCorrection[] {
  const found: IndexedCorrection[] = [];
  for (const step of state.steps.values()) {
    if (step.copiedFrom !== undefined) continue;
    const correction = step.correctionOf !== undefined ? editOf(state, step) : refusalOf(state, step);
    if (correction !== undefined) found.push(correction);
  }
  return found;
}
