import { accessAllows, isConfinedToShare, type AccessNeed, type SessionAccess } from '@interthought/protocol';
import { SessionError, notFound } from '../core/session-error.js';
import type { Actor, ListScope, SessionService } from '../core/session-service.js';
import { accessOf, type Principal } from './access-rules.js';

const NEEDS: Record<AccessNeed, string> = {
  see: 'see',
  steer: 'correct, message, decide, pause, resume or cancel',
  own: 'share, unshare or delete',
};

function forbidden(sessionId: string, access: SessionAccess, need: AccessNeed): SessionError {
  const role = access === 'viewer' ? 'a viewer (read-only)' : 'an editor';
  return new SessionError('FORBIDDEN', `You reach session ${sessionId} through a share link as ${role}: only its owner may ${NEEDS[need]} it.`);
}

/**
 * Who may do what with which session, for the transport and REST (PROTOCOL.md §21.2): each request
 * on a session passes here first. On an open server (no users) a principal without a link is never
 * checked, so that path costs nothing.
 */
export class SessionGate {
  constructor(
    private readonly sessions: Pick<SessionService, 'accessFacts'>,
    /** The server tells users apart (`jwt`, `proxy`). */
    readonly usersOn: boolean,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Pass when `principal` may do what `need` asks of the session; else `SESSION_NOT_FOUND` when it
   * may not even see it (exactly as for a session that does not exist), `FORBIDDEN` otherwise.
   */
  async require(principal: Principal, sessionId: string, need: AccessNeed): Promise<void> {
    if (!this.usersOn && principal.share === undefined) return;
    const facts = await this.sessions.accessFacts(sessionId);
    const access = facts === undefined ? undefined : accessOf(principal, sessionId, facts, this.usersOn, this.now());
    if (access === undefined) throw notFound(sessionId);
    if (!accessAllows(access, need)) throw forbidden(sessionId, access, need);
  }

  /** A share link alone opens one session: it cannot start, fork into or import others. */
  requireCreator(principal: Principal): void {
    if (!isConfinedToShare(principal)) return;
    throw new SessionError('FORBIDDEN', 'A share link opens one session only: sign in to start, fork or import sessions.');
  }

  /** Which sessions the principal's lists hold; undefined: every one. */
  listScope(principal: Principal): ListScope | undefined {
    if (principal.share !== undefined && isConfinedToShare(principal)) return { sessionId: principal.share.sessionId };
    const { user } = principal;
    if (!this.usersOn || user === undefined || user.admin) return undefined;
    return principal.share === undefined ? { ownerId: user.id } : { ownerId: user.id, sessionId: principal.share.sessionId };
  }

  /** The owner of what the principal creates: the user, on a server with users. */
  ownerFor(principal: Principal): Actor | undefined {
    const { user } = principal;
    return this.usersOn && user !== undefined ? { id: user.id, name: user.name } : undefined;
  }
}
