import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { Config } from '../config/index.js';
import { isLoopbackHost, isOriginAllowed, isRebindProof } from './host-and-origin.js';
import { sendRestError } from '../rest-error-reply.js';

/** What decides which `Host` and `Origin` headers a request may carry. */
export interface AccessPolicy {
  /** The server listens on loopback only: its legitimate names are loopback names and IP literals. */
  serverIsLoopback: boolean;
  /** Extra host names this server answers to (INTERTHOUGHT_ALLOWED_HOSTS, and the hosts of ALLOWED_ORIGINS). */
  allowedHosts: readonly string[] | undefined;
  /** ALLOWED_ORIGINS: when set, the only origins whose pages may call the server. */
  allowedOrigins: readonly string[] | undefined;
}

/** The host name of a `Host` header (`name:port`, `[v6]:port`), lower-cased; undefined when it is not one. */
export function hostnameOf(host: string): string | undefined {
  try {
    return new URL(`http://${host}`).hostname.toLowerCase();
  } catch {
    return undefined;
  }
}

/**
 * Whether a request's `Host` names this server. A page on a DNS-rebinding domain reaches a
 * loopback server with its own name as `Host`, so a loopback server answers only to names DNS
 * cannot rebind (loopback names, IP literals) and to the names it was told. A server on a public
 * interface cannot know its names unless told: without INTERTHOUGHT_ALLOWED_HOSTS it answers to any.
 * No `Host` at all is a non-browser client (HTTP/1.0): browsers always send one.
 */
export function isHostAllowed(host: string | undefined, policy: AccessPolicy): boolean {
  if (host === undefined) return true;
  const hostname = hostnameOf(host);
  if (hostname === undefined) return false;
  if (isRebindProof(hostname)) return true;
  if (policy.allowedHosts !== undefined) return policy.allowedHosts.includes(hostname);
  return !policy.serverIsLoopback;
}

/** The host names of ALLOWED_ORIGINS and INTERTHOUGHT_ALLOWED_HOSTS together, or undefined when neither is set. */
export function allowedHostsOf(hosts: readonly string[] | undefined, origins: readonly string[] | undefined): string[] | undefined {
  if (hosts === undefined && origins === undefined) return undefined;
  const fromOrigins = (origins ?? []).map((origin) => new URL(origin).hostname.toLowerCase());
  return [...new Set([...(hosts ?? []), ...fromOrigins])];
}

/**
 * One `onRequest` hook for every route (REST, static UI, WebSocket upgrade): a foreign `Host`
 * (DNS rebinding) or a page from a foreign `Origin` gets 403 before anything else runs. Refusals
 * are counted and logged briefly by the caller's `onRefused`.
 */
export function enforceAccessPolicy(policy: AccessPolicy, onRefused: (request: FastifyRequest, why: 'host' | 'origin') => void) {
  return async function checkAccess(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined> {
    const { host, origin } = request.headers;
    if (!isHostAllowed(host, policy)) {
      onRefused(request, 'host');
      return sendRestError(
        reply,
        'FORBIDDEN',
        'This server does not answer to that host name (a defence against DNS rebinding). Open it by its IP address or localhost, or add the name to INTERTHOUGHT_ALLOWED_HOSTS.',
      );
    }
    if (!isOriginAllowed(origin, host, policy.allowedOrigins, policy.serverIsLoopback)) {
      onRefused(request, 'origin');
      return sendRestError(reply, 'FORBIDDEN', 'Pages from this origin may not call this server. Add the origin to ALLOWED_ORIGINS to allow it.');
    }
    return undefined;
  };
}

/** The policy the configuration asks for. */
export function accessPolicyOf(config: Pick<Config, 'host' | 'allowedHosts' | 'allowedOrigins'>): AccessPolicy {
  return {
    serverIsLoopback: isLoopbackHost(config.host),
    allowedHosts: allowedHostsOf(config.allowedHosts, config.allowedOrigins),
    allowedOrigins: config.allowedOrigins,
  };
}

/**
 * The policy as a root hook. Register it after @fastify/websocket: that plugin's own onRequest
 * hook must mark an upgrade first, or the socket of an upgrade refused here is never destroyed
 * and holds the server's close open.
 */
export const accessPolicy = fp(
  async (app: FastifyInstance, options: { policy: AccessPolicy; onRefused: (request: FastifyRequest, why: 'host' | 'origin') => void }) => {
    app.addHook('onRequest', enforceAccessPolicy(options.policy, options.onRefused));
  },
  { name: 'access-policy' },
);
