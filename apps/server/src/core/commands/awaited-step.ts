import type { SessionState, Step } from '@interthought/protocol';
import type { LiveSession } from '../sessions/live-session.js';
import { SessionError } from '../session-error.js';

/*
 * What approvals and questions share (PROTOCOL.md §19.3, §25.2): finding the step a person's word
 * is for, and the observation that closes a call whose tool never ran.
 */

/**
 * The step `stepId` names and the protocol's judgement of it (`judge`: `decisionRefusal` or
 * `inputRefusal`), refused first when the session is cancelled (`cancelled` says what can no longer
 * be done), then when there is no such step. The caller turns the other refusals into its errors.
 */
export function judgeAwaitedStep<Refusal extends string>(
  session: LiveSession,
  stepId: string,
  judge: (state: SessionState, stepId: string) => Refusal | undefined,
  cancelled: string,
): { step: Step; refusal: Exclude<Refusal, 'not_found'> | undefined } {
  if (session.status === 'cancelled') {
    throw new SessionError('SESSION_CANCELLED', `Session ${session.id} is cancelled; ${cancelled}`);
  }
  const step = session.state.steps.get(stepId);
  const refusal = judge(session.state, stepId);
  if (step === undefined || refusal === 'not_found') {
    throw new SessionError('STEP_NOT_FOUND', `Session ${session.id} has no step ${stepId}. Subscribe again to get the current steps.`);
  }
  return { step, refusal: refusal as Exclude<Refusal, 'not_found'> | undefined };
}

/** What the observation that closes a call says, and who wrote it. */
export interface WholeObservation {
  stepId: string;
  tool: string;
  content: string;
  result: unknown;
  /** Who the observation is by, when someone other than the tool gave it. */
  by?: string;
  byName?: string;
}

/**
 * Append the observation of `call`, the head of its chain, a whole step at once: nothing ran, so
 * nothing streams (a refusal, an answer, a question nobody answered).
 */
export function appendWholeObservation(session: LiveSession, call: Step, observation: WholeObservation): void {
  const { stepId, tool, content, result } = observation;
  session.append({
    type: 'step.started',
    ...session.nextBase(),
    step: {
      stepId,
      parentId: call.stepId,
      index: call.index + 1,
      kind: 'observation',
      status: 'streaming',
      content: '',
      revision: session.state.session.revision,
      tool,
      ...(observation.by === undefined ? {} : { by: observation.by }),
      ...(observation.byName === undefined ? {} : { byName: observation.byName }),
      ...(call.scope === undefined ? {} : { scope: call.scope }),
    },
  });
  session.append({ type: 'step.completed', ...session.nextBase(), stepId, content, tool, result });
}
