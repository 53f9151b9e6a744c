import type { TokenStore } from './token-store.js';

/** An address that carried an access token: the token, and the same address without it. */
export interface SplitAddress {
  /** The `token` query parameter (the last one if there are several), or undefined when empty. */
  token: string | undefined;
  /** Path, the other query parameters (byte for byte) and hash, with every `token` parameter removed. */
  rest: string;
}

const isTokenPair = (pair: string): boolean => new URLSearchParams(pair).has('token');

/** Find `?token=` in `href`; null when the address has none. */
export function splitToken(href: string): SplitAddress | null {
  const url = new URL(href);
  const pairs = url.search.slice(1).split('&');
  const tokenPairs = pairs.filter(isTokenPair);
  const last = tokenPairs.at(-1);
  if (last === undefined) return null;
  // Rebuilt from the raw pairs rather than URLSearchParams, which would re-encode the others.
  const others = pairs.filter((pair) => pair !== '' && !isTokenPair(pair));
  const search = others.length > 0 ? `?${others.join('&')}` : '';
  return { token: new URLSearchParams(last).get('token') || undefined, rest: `${url.pathname}${search}${url.hash}` };
}

/**
 * Take the access token from the address bar once: keep it for the tab and drop it from the
 * address at once, so it does not stay in the history, in a screenshot or in a Referer.
 * Runs before the router reads the address (hooks.client `init`), so no route ever sees it.
 */
export function takeTokenFromAddress(
  location: Pick<Location, 'href'>,
  history: Pick<History, 'state' | 'replaceState'>,
  store: Pick<TokenStore, 'set'>,
): void {
  const split = splitToken(location.href);
  if (!split) return;
  if (split.token !== undefined) store.set(split.token);
  history.replaceState(history.state, '', split.rest);
}
