import type { TokenStore } from './token-store.js';

/** An address that carried a secret parameter (`token`, `share`): its value, and the same address without it. */
export interface SplitAddress {
  /** The parameter's value (the last one if there are several), or undefined when empty. */
  token: string | undefined;
  /** Path, the other query parameters (byte for byte) and hash, with every such parameter removed. */
  rest: string;
}

/** Find the query parameter `name` in `href` (the last one if there are several); null when the address has none. */
export function splitParam(href: string, name: string): SplitAddress | null {
  const url = new URL(href);
  const isPair = (pair: string): boolean => new URLSearchParams(pair).has(name);
  const pairs = url.search.slice(1).split('&');
  const last = pairs.filter(isPair).at(-1);
  if (last === undefined) return null;
  // Rebuilt from the raw pairs rather than URLSearchParams, which would re-encode the others.
  const others = pairs.filter((pair) => pair !== '' && !isPair(pair));
  const search = others.length > 0 ? `?${others.join('&')}` : '';
  return { token: new URLSearchParams(last).get(name) || undefined, rest: `${url.pathname}${search}${url.hash}` };
}

/** Find `?token=` in `href`; null when the address has none. */
export function splitToken(href: string): SplitAddress | null {
  return splitParam(href, 'token');
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
