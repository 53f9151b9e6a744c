import { FIELD_LIMITS, isOnChain, type SessionEvent, type Step, type StepApproval } from '@interthought/protocol';
import type { ToolCatalog } from '../ports/tool-catalog.js';
import type { LiveSession } from '../sessions/live-session.js';
import { SessionError } from '../session-error.js';
import { checkWellFormed } from './session-input.js';
import { checkNotDenied } from './standing-decisions.js';
import type { CorrectStepInput } from '../session-service.js';

/**
 * Check a correction against PROTOCOL.md §7 "Correction semantics", in the documented order
 * (the session was found by the caller), and return the step it replaces. Throws a
 * `SessionError` and changes nothing when refused.
 */
export function checkCorrection(session: LiveSession, input: CorrectStepInput, tools: ToolCatalog): Step {
  const { state } = session;
  if (session.status === 'cancelled') {
    throw new SessionError('SESSION_CANCELLED', `Session ${session.id} is cancelled; its steps can no longer be corrected. Start a new session.`);
  }
  const step = state.steps.get(input.stepId);
  if (step === undefined) {
    throw new SessionError('STEP_NOT_FOUND', `Session ${session.id} has no step ${input.stepId}. Subscribe again to get the current steps.`);
  }
  const onChain = isOnChain(state, step);
  const revision = state.session.revision;
  if (!onChain && input.baseRevision !== undefined && input.baseRevision < revision) {
    throw new SessionError(
      'STALE_REVISION',
      `Step ${step.stepId} left the chain after revision ${input.baseRevision}; the session is at revision ${revision}. Correct a step of the current chain.`,
    );
  }
  if (!onChain) {
    throw new SessionError('STEP_INVALIDATED', `Step ${step.stepId} was invalidated by a correction; correct a step of the current chain instead.`);
  }
  checkContent(step, input, tools);
  checkNotDenied(session, step, input.content, tools);
  return step;
}

function checkContent(step: Step, input: CorrectStepInput, tools: ToolCatalog): void {
  const { content, note } = input;
  if (typeof content !== 'string' || content.length === 0 || content.length > FIELD_LIMITS.correctionMax) {
    throw new SessionError('BAD_CORRECTION', `A correction's content must be 1 to ${FIELD_LIMITS.correctionMax} characters.`, [
      { path: ['content'], message: `Expected 1 to ${FIELD_LIMITS.correctionMax} characters` },
    ]);
  }
  if (note !== undefined && (typeof note !== 'string' || note.length > FIELD_LIMITS.noteMax)) {
    throw new SessionError('BAD_CORRECTION', `A correction's note must be at most ${FIELD_LIMITS.noteMax} characters.`, [
      { path: ['note'], message: `Expected at most ${FIELD_LIMITS.noteMax} characters` },
    ]);
  }
  checkWellFormed('content', content);
  if (note !== undefined) checkWellFormed('note', note);
  if (step.kind !== 'tool_call') return;
  if (step.tool === undefined) {
    throw new SessionError('BAD_CORRECTION', `Tool call ${step.stepId} names no tool, so its input cannot be checked.`, [
      { path: ['stepId'], message: 'The tool call names no tool' },
    ]);
  }
  // A tool the server does not have is a remote worker's own: its input is checked to be JSON, the worker checks the rest.
  if (tools.get(step.tool) === undefined) {
    checkJsonInput(step.tool, content);
    return;
  }
  const check = tools.checkInput(step.tool, content);
  if (!check.ok) throw new SessionError('BAD_CORRECTION', check.message, check.details);
}

function checkJsonInput(tool: string, content: string): void {
  try {
    JSON.parse(content);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new SessionError('BAD_CORRECTION', `The input of ${tool} must be JSON: ${reason}`, [{ path: ['content'], message: reason }]);
  }
}

/** Who corrected what, for the events of an accepted correction. */
export interface AcceptedCorrection {
  target: Step;
  newStepId: string;
  content: string;
  note?: string;
  by?: string;
  byName?: string;
  /** The new step's approval, when the correction edited a call that waited for one. */
  approval?: StepApproval;
  /** What `steps.invalidated` lists (sub-agents and parents included, `planInvalidation`); by default the rest of the target's chain. */
  invalidated?: readonly string[];
}

/**
 * Append the events of an accepted correction: `step.corrected` (the new step takes the
 * replaced one's place on the chain) then `steps.invalidated` (the replaced step and every
 * later step of the old chain). Returns the new revision.
 */
export function appendCorrection(session: LiveSession, accepted: AcceptedCorrection): number {
  const { state } = session;
  const { target } = accepted;
  const revision = state.session.revision + 1;
  // Read before step.corrected truncates the chain (of the target's scope).
  const invalidated = accepted.invalidated ?? session.chainOf(target.scope).slice(target.index);
  const correctedBase = session.nextBase();
  const correction: NonNullable<Step['correction']> = { previousContent: target.content, at: correctedBase.at };
  if (accepted.note !== undefined) correction.note = accepted.note;
  if (accepted.by !== undefined) correction.by = accepted.by;
  if (accepted.byName !== undefined) correction.byName = accepted.byName;
  const step: Step = {
    stepId: accepted.newStepId,
    parentId: target.parentId,
    index: target.index,
    kind: target.kind,
    status: 'corrected',
    content: accepted.content,
    revision,
    correctionOf: target.stepId,
    correction,
  };
  if (target.tool !== undefined) step.tool = target.tool;
  if (target.scope !== undefined) step.scope = target.scope;
  if (accepted.approval !== undefined) step.approval = accepted.approval;
  // A corrected lessons step is still the lessons step: its text is what the agent is given now (§26.4).
  if (target.lessons !== undefined) step.lessons = target.lessons;
  const corrected: SessionEvent = { type: 'step.corrected', ...correctedBase, step, revision };
  session.append(corrected);
  const invalidation: SessionEvent = {
    type: 'steps.invalidated',
    ...session.nextBase(),
    stepIds: [...invalidated],
    byStepId: accepted.newStepId,
    revision,
  };
  session.append(invalidation);
  return revision;
}
