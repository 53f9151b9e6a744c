import { isConfinedToShare } from '@interthought/protocol';
import { SessionError } from '../core/session-error.js';
import type { Principal } from '../sharing/access-rules.js';
import type { SessionGate } from '../sharing/session-gate.js';
import type { CorrectionVisibility } from './correction-index.js';

/**
 * Whose corrections a requester lists and exports (PROTOCOL.md §26.2, by the rules of §21.2):
 * everything on a server without users and for an admin; else the sessions the user owns, plus
 * the one a valid editor link they present opens. A share link alone gets `FORBIDDEN`: it opens
 * one session, not a dataset.
 */
export async function visibilityOf(principal: Principal, gate: SessionGate): Promise<CorrectionVisibility> {
  if (isConfinedToShare(principal)) {
    throw new SessionError('FORBIDDEN', 'A share link opens one session only: sign in to list or export corrections.');
  }
  const { user, share } = principal;
  if (!gate.usersOn || user === undefined || user.admin) return { all: true };
  if (share === undefined) return { all: false, ownerId: user.id };
  // The link counts when it still lets its holder steer the session: an editor's, not revoked nor expired.
  const steers = await gate.require(principal, share.sessionId, 'steer').then(
    () => true,
    () => false,
  );
  return steers ? { all: false, ownerId: user.id, sessionIds: [share.sessionId] } : { all: false, ownerId: user.id };
}
