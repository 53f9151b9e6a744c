import type { Owner, ShareGrant, ShareRecord, ShareRole } from './sharing.js';

/*
 * Who may do what with a session (PROTOCOL.md §21.2): the one definition of the rule. The server
 * applies it to refuse a request; a client applies it to offer only what the server will allow.
 */

/** What a requester may do with one session, from least to most: watch, also steer, also share and delete. */
export type SessionAccess = 'viewer' | 'editor' | 'owner';

/** What a request needs of a session: to see it, to steer it, or to own it (share, unshare, delete). */
export type AccessNeed = 'see' | 'steer' | 'own';

/** The least access each need asks for. */
export const ACCESS_NEEDED: Readonly<Record<AccessNeed, SessionAccess>> = { see: 'viewer', steer: 'editor', own: 'owner' };

const RANK: Readonly<Record<SessionAccess, number>> = { viewer: 0, editor: 1, owner: 2 };

/** Whether `access` covers `need`. */
export function accessAllows(access: SessionAccess, need: AccessNeed): boolean {
  return RANK[access] >= RANK[ACCESS_NEEDED[need]];
}

/** Who a request speaks for: a signed-in user, a share link, both, or (a server without users) neither. */
export interface Principal {
  readonly user?: { readonly id: string; readonly admin?: boolean | undefined } | undefined;
  readonly share?: ShareGrant | undefined;
}

/** What the rule reads of a session. */
export interface AccessFacts {
  /** Its owner: absent without users, or on a session made before the server told users apart. */
  readonly owner?: Owner | undefined;
  /**
   * The role of the principal's link on this session, when the link works now (see `linkRoleOf`);
   * undefined without a link, or with one that is revoked, expired or for another session.
   */
  readonly linkRole?: ShareRole | undefined;
}

/** Whether a link works now, and if not why: `revoked` (or never made for this session) or `expired`. */
export type ShareStanding = 'active' | 'revoked' | 'expired';

/** Whether `grant` works on session `sessionId` now: made for it, in its log with that role (not revoked), not expired. */
export function shareStanding(grant: ShareGrant, sessionId: string, shares: readonly ShareRecord[], now: number): ShareStanding {
  if (grant.sessionId !== sessionId) return 'revoked';
  const record = shares.find((share) => share.shareId === grant.shareId);
  if (record === undefined || record.role !== grant.role) return 'revoked';
  if (record.expiresAt !== undefined && Date.parse(record.expiresAt) <= now) return 'expired';
  return 'active';
}

/** The role `grant` gives on session `sessionId` now, judged by the session's links (`AccessFacts.linkRole`). */
export function linkRoleOf(grant: ShareGrant | undefined, sessionId: string, shares: readonly ShareRecord[], now: number): ShareRole | undefined {
  return grant !== undefined && shareStanding(grant, sessionId, shares, now) === 'active' ? grant.role : undefined;
}

/**
 * Whether the principal reaches its link's session only: it holds a link and no user. So does
 * anyone holding one on a server without users (`none`, `token`), where everyone else is the one user.
 */
export function isConfinedToShare(principal: Principal): boolean {
  return principal.share !== undefined && principal.user === undefined;
}

/**
 * What `principal` may do with a session, or undefined when it may not even see it (the server
 * answers as for a session that does not exist). `usersOn`: the server tells users apart (`jwt`,
 * `proxy`). A signed-in owner or admin keeps `owner` whatever link it also holds: a link adds
 * access to a session, it never takes any away. Anyone else gets what its link gives, if anything.
 */
export function accessOf(principal: Principal, facts: AccessFacts, usersOn: boolean): SessionAccess | undefined {
  if (isConfinedToShare(principal)) return facts.linkRole;
  if (!usersOn) return 'owner';
  const { user } = principal;
  if (user !== undefined && (user.admin === true || (facts.owner !== undefined && facts.owner.id === user.id))) return 'owner';
  return facts.linkRole;
}
