import type { SessionInfo } from '@interthought/protocol';
import type { EventStore, SessionPage } from '../persistence/event-store.js';
import type { ListScope } from '../session-service.js';

/**
 * A page of the sessions list as one requester may see it (PROTOCOL.md §21.2): everything, a
 * user's own sessions (the store pages them by owner), and a share link's session, which leads the
 * first page when it is not on it already.
 */
export async function listInScope(
  store: Pick<EventStore, 'listSessions' | 'getSession'>,
  options: { limit: number; before?: string; scope?: ListScope },
): Promise<SessionPage> {
  const { limit, before, scope } = options;
  const paging = before === undefined ? { limit } : { limit, before };
  if (scope === undefined) return store.listSessions(paging);
  const shared = scope.sessionId === undefined || before !== undefined ? undefined : (await store.getSession(scope.sessionId))?.info;
  // A link alone: its session is the whole list.
  if (scope.ownerId === undefined) return { sessions: shared === undefined ? [] : [shared] };
  const page = await store.listSessions({ ...paging, ownerId: scope.ownerId });
  if (shared === undefined || page.sessions.some((info) => info.sessionId === shared.sessionId)) return page;
  return { ...page, sessions: [shared, ...page.sessions] };
}

/** Whether a session's summary belongs in a list of `scope` (its changes go to that list's watchers). */
export function inScope(info: SessionInfo, scope: ListScope | undefined): boolean {
  if (scope === undefined) return true;
  return info.sessionId === scope.sessionId || (scope.ownerId !== undefined && info.owner?.id === scope.ownerId);
}
