import { splitParam } from '$lib/access/token-intake.js';
import type { ShareTokenStore } from './share-token-store.js';

/** The session id of a session page's path (`/sessions/<id>`), or undefined for any other page. */
export function sessionIdOfPath(pathname: string): string | undefined {
  const match = /^\/sessions\/([^/]+)\/?$/.exec(pathname);
  if (!match?.[1]) return undefined;
  try {
    return decodeURIComponent(match[1]);
  } catch {
    return undefined;
  }
}

/**
 * Take a share link's `?share=` from the address bar once, as the access token is taken: kept for
 * the tab under the session it opens, and dropped from the address so it stays out of the
 * history, screenshots and Referer headers. A `share` on a page that is not a session's is dropped.
 */
export function takeShareFromAddress(
  location: Pick<Location, 'href'>,
  history: Pick<History, 'state' | 'replaceState'>,
  store: Pick<ShareTokenStore, 'set'>,
): void {
  const split = splitParam(location.href, 'share');
  if (!split) return;
  const sessionId = sessionIdOfPath(new URL(location.href).pathname);
  if (split.token !== undefined && sessionId !== undefined) store.set(sessionId, split.token);
  history.replaceState(history.state, '', split.rest);
}
