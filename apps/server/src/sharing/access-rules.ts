import type { Owner, ShareGrant, ShareRecord } from '@interthought/protocol';

/**
 * Who may do what with a session (PROTOCOL.md §21.2): the rules alone, as plain functions of who
 * asks and what the session's log says, so the transport, REST and tests read the same table.
 */

/** Who a request speaks for: a signed-in user, a share link, both, or (an open server) neither. */
export interface Principal {
  readonly user?: { id: string; name: string; admin: boolean } | undefined;
  readonly share?: ShareGrant | undefined;
}

/** What a requester may do with one session, from least to most. */
export type Access = 'viewer' | 'editor' | 'owner';

/** What the need of a request is: to see the session, to steer it, or to own it (share, delete). */
export type Need = 'see' | 'steer' | 'own';

/** What the access rules read of a session. */
export interface AccessFacts {
  owner?: Owner | undefined;
  shares: readonly ShareRecord[];
}

const RANK: Record<Access, number> = { viewer: 0, editor: 1, owner: 2 };
const NEEDED: Record<Need, Access> = { see: 'viewer', steer: 'editor', own: 'owner' };

/** Whether `access` covers `need`. */
export function allows(access: Access, need: Need): boolean {
  return RANK[access] >= RANK[NEEDED[need]];
}

/**
 * A link that works now: made for this session, in its log (not revoked), not expired. Why not,
 * otherwise, for a message that says which.
 */
export function shareStanding(grant: ShareGrant, sessionId: string, shares: readonly ShareRecord[], now: number): 'active' | 'revoked' | 'expired' {
  if (grant.sessionId !== sessionId) return 'revoked';
  const record = shares.find((share) => share.shareId === grant.shareId);
  if (record === undefined || record.role !== grant.role) return 'revoked';
  if (record.expiresAt !== undefined && Date.parse(record.expiresAt) <= now) return 'expired';
  return 'active';
}

/**
 * A principal without a user, holding a link, reaches that link's session only; so does anyone
 * holding one on a server without users (`none`, `token`), where otherwise everyone is the one user.
 */
export function isConfinedToShare(principal: Principal): boolean {
  return principal.share !== undefined && principal.user === undefined;
}

/**
 * What `principal` may do with the session, or undefined when it may not even see it (and must be
 * told the session does not exist). `usersOn`: the server tells users apart (`jwt`, `proxy`).
 */
export function accessOf(principal: Principal, sessionId: string, facts: AccessFacts, usersOn: boolean, now: number): Access | undefined {
  const { user, share } = principal;
  const viaShare = share !== undefined && shareStanding(share, sessionId, facts.shares, now) === 'active' ? share.role : undefined;
  if (isConfinedToShare(principal)) return viaShare;
  if (!usersOn) return 'owner';
  if (user !== undefined && (user.admin || (facts.owner !== undefined && facts.owner.id === user.id))) return 'owner';
  return viaShare;
}
