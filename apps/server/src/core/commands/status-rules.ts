import { LIFECYCLE_ALLOWED_FROM, allowsLifecycle, type LifecycleRequest, type SessionStatus } from '@interthought/protocol';
import { SessionError } from '../session-error.js';

/** The user's status requests; which statuses each applies to is the protocol's rule (`LIFECYCLE_ALLOWED_FROM`). */
export type StatusRequest = LifecycleRequest;

function hint(request: StatusRequest, status: SessionStatus): string {
  if (status === 'waiting' && request !== 'cancel') {
    return 'It waits for the user: approve or reject its tool call (tool.approve / tool.reject), answer its question (input.provide), or correct a step.';
  }
  switch (request) {
    case 'pause':
      return status === 'paused' ? 'It is already paused; resume it instead.' : 'Only a running session can be paused.';
    case 'resume':
      return status === 'running' ? 'It is already running.' : 'Only a paused or interrupted session can be resumed; correct a step to make it run again.';
    case 'cancel':
      return status === 'cancelled'
        ? 'It is already cancelled; nothing is left to stop.'
        : 'It has finished, so nothing is left to stop; correct a step to run it again, or delete it.';
  }
}

/** Throws `INVALID_STATE` (saying the current status and what is allowed) unless `request` applies now. */
export function checkStatusRequest(sessionId: string, request: StatusRequest, status: SessionStatus): void {
  if (allowsLifecycle(request, status)) return;
  throw new SessionError(
    'INVALID_STATE',
    `Cannot ${request} session ${sessionId}: it is ${status}. ${hint(request, status)} (${request} applies to: ${LIFECYCLE_ALLOWED_FROM[request].join(', ')}.)`,
  );
}
