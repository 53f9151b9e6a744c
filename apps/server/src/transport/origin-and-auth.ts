import { createHash, timingSafeEqual } from 'node:crypto';
import { isIP } from 'node:net';
import type { FastifyRequest } from 'fastify';

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

/** The token a request presents: `Authorization: Bearer <token>` or `?token=` (browsers cannot set headers on a WebSocket). */
export function presentedToken(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (header !== undefined) {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    return match?.[1];
  }
  const query = request.query as Record<string, unknown> | undefined;
  const token = query?.token;
  return typeof token === 'string' ? token : undefined;
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

/** Compare in constant time (hashing first makes the lengths equal). */
export function tokenMatches(presented: string | undefined, expected: string): boolean {
  return presented !== undefined && timingSafeEqual(digest(presented), digest(expected));
}

/** Replace the value of any `token` or `share` query parameter so it never reaches a log line. */
export function redactUrl(url: string): string {
  return url.replace(/([?&](?:token|share)=)[^&#]*/gi, '$1[redacted]');
}
