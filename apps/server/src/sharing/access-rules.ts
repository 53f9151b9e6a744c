import { accessOf as accessByRule, linkRoleOf, type Principal as RulePrincipal, type SessionAccess, type ShareGrant } from '@interthought/protocol';
import type { SessionAccessFacts } from '../core/session-service.js';

/*
 * The access rule (PROTOCOL.md §21.2) is the protocol's `accessOf`; the server adds what only it
 * knows: the session's links as its log holds them, and the user's name for what it creates.
 */

/** Who a request speaks for: a signed-in user, a share link, both, or (an open server) neither. */
export interface Principal extends RulePrincipal {
  readonly user?: { id: string; name: string; admin: boolean } | undefined;
  readonly share?: ShareGrant | undefined;
}

/**
 * What `principal` may do with the session whose log says `facts`, or undefined when it may not even
 * see it (and must be told the session does not exist). `usersOn`: the server tells users apart (`jwt`, `proxy`).
 */
export function accessOf(principal: Principal, sessionId: string, facts: SessionAccessFacts, usersOn: boolean, now: number): SessionAccess | undefined {
  return accessByRule(principal, { owner: facts.owner, linkRole: linkRoleOf(principal.share, sessionId, facts.shares, now) }, usersOn);
}
