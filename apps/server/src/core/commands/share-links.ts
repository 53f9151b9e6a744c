import type { ShareRecord } from '@interthought/protocol';
import type { SessionEngine } from '../sessions/session-engine.js';
import { SessionError } from '../session-error.js';
import type { ShareInput, UnshareInput } from '../session-service.js';
import { byNameOf } from './decider.js';

/** Record a share link (`share.created`); written before it resolves: a link is handed out only once its record is in the log. */
export async function shareSession(engine: SessionEngine, input: ShareInput): Promise<ShareRecord> {
  await engine.open();
  const session = await engine.require(input.sessionId);
  const share: ShareRecord = { shareId: `sh_${engine.newId()}`, role: input.role, createdAt: engine.now().toISOString(), by: input.by };
  if (input.expiresAt !== undefined) share.expiresAt = input.expiresAt;
  if (input.byName !== undefined) share.byName = input.byName;
  session.append({ type: 'share.created', ...session.nextBase(), share });
  await engine.written();
  return share;
}

/** Revoke a link (`share.revoked`); `INVALID_STATE` when the session has no such link. */
export async function unshareSession(engine: SessionEngine, input: UnshareInput): Promise<void> {
  await engine.open();
  const session = await engine.require(input.sessionId);
  if (!session.state.shares.some((share) => share.shareId === input.shareId)) {
    throw new SessionError('INVALID_STATE', `Session ${session.id} has no share link ${input.shareId}: it was revoked already, or never made.`);
  }
  session.append({ type: 'share.revoked', ...session.nextBase(), shareId: input.shareId, by: input.by, ...byNameOf(input) });
  await engine.written();
}
