import { shareActor, type SessionShared, type ShareGrant, type ShareRole } from '@interthought/protocol';
import type { SessionService } from '../core/session-service.js';
import { shareUrl, type ShareLinks } from './share-links.js';

/** Who makes or revokes a link, as the log names them. */
export interface Sharer {
  by: string;
  byName?: string | undefined;
}

/** A link made: what `session.shared` (and `POST /api/sessions/:id/shares`) answers, without `type` and `requestId`. */
export type MadeShare = ShareGrant & Pick<SessionShared, 'token' | 'url'>;

/**
 * Record a share link in the session's log, then sign its token (PROTOCOL.md §21.3): the token is
 * handed out only once the record that lets it be revoked is written. The caller checked that the
 * requester owns the session.
 */
export async function makeShare(
  sessions: Pick<SessionService, 'share'>,
  links: ShareLinks,
  request: { sessionId: string; role: ShareRole; expiresInSec?: number | undefined; baseUrl: string },
  sharer: Sharer,
): Promise<MadeShare> {
  const { sessionId, role, expiresInSec } = request;
  const expiresAt = expiresInSec === undefined ? undefined : new Date(Date.now() + expiresInSec * 1_000).toISOString();
  const record = await sessions.share({
    sessionId,
    role,
    by: sharer.by,
    ...(sharer.byName === undefined ? {} : { byName: sharer.byName }),
    ...(expiresAt === undefined ? {} : { expiresAt }),
  });
  const grant: ShareGrant = { sessionId, shareId: record.shareId, role };
  if (record.expiresAt !== undefined) grant.expiresAt = record.expiresAt;
  const token = await links.sign(grant);
  return { ...grant, token, url: shareUrl(request.baseUrl, sessionId, token) };
}

/** Where the links the server makes point: INTERTHOUGHT_PUBLIC_URL, else the address the request came to. */
export function baseUrlOf(publicUrl: string | undefined, request: { protocol: string; host: string }): string {
  return publicUrl ?? `${request.protocol}://${request.host}`;
}

/** How a principal is named in the log: the user's id and name, else the connection (or the link) it came by. */
export function actorOf(principal: { user?: { id: string; name: string } | undefined; share?: { shareId: string } | undefined }, fallback: string): Sharer {
  if (principal.user !== undefined) return { by: principal.user.id, byName: principal.user.name };
  // A link's holder is said as such (PROTOCOL.md §21.2), not as a connection the reader cannot tell from their own.
  if (principal.share !== undefined) return { by: shareActor(principal.share.shareId) };
  return { by: fallback };
}
