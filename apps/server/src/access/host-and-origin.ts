import { isIP } from 'node:net';

const LOOPBACK_HOSTNAMES: ReadonlySet<string> = new Set(['localhost', '127.0.0.1', '[::1]']);

/** Whether the server listens on loopback only (the default `HOST`). */
export function isLoopbackHost(host: string): boolean {
  const name = host.toLowerCase();
  return LOOPBACK_HOSTNAMES.has(name) || name === '::1' || name.startsWith('127.');
}

/** A name DNS cannot rebind: a loopback name or an IP literal. */
export function isRebindProof(hostname: string): boolean {
  return LOOPBACK_HOSTNAMES.has(hostname) || isIP(hostname.replace(/^\[|\]$/g, '')) !== 0;
}

/**
 * Whether a browser page from `origin` may open the WebSocket. No Origin header means a
 * non-browser client (wscat, Node), which cross-site pages cannot impersonate: allowed.
 * With an explicit list only those origins pass; otherwise the same origin as `host`
 * (the UI this server serves) and http(s) pages on a loopback host. A server that listens on
 * loopback only trusts "same origin" for IP or loopback hosts: a site whose DNS name was rebound
 * to 127.0.0.1 sends its own name as both Origin and Host, and must not pass as same-origin.
 */
export function isOriginAllowed(
  origin: string | undefined,
  host: string | undefined,
  allowed: readonly string[] | undefined,
  serverIsLoopback = false,
): boolean {
  if (origin === undefined) return true;
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return false;
  if (allowed) return allowed.includes(url.origin);
  if (host !== undefined && url.host === host.toLowerCase() && (!serverIsLoopback || isRebindProof(url.hostname))) return true;
  return LOOPBACK_HOSTNAMES.has(url.hostname);
}
