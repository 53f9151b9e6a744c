import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import fp from 'fastify-plugin';
import type { Config } from '../config.js';
import { presentedToken, requireToken } from '../transport/origin-and-auth.js';
import { AuthenticationError, type Authenticator, type CredentialSource, type Identity } from './identity.js';
import { createJwtAuthenticator } from './jwt-authenticator.js';
import { createProxyAuthenticator } from './proxy-authenticator.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The signed-in user (INTERTHOUGHT_AUTH `jwt` or `proxy`), set by the guard; undefined with `none` or `token`. */
    user: Identity | undefined;
  }
  interface FastifyInstance {
    authentication: Authentication;
  }
}

/** How this server lets clients in, as the routes use it. */
export interface Authentication {
  /** The `onRequest` hook of /ws and every guarded /api route; undefined when the server is open. */
  guard: onRequestAsyncHookHandler | undefined;
  /** Checks a replacement token for `auth.refresh`; only JWTs can be refreshed. */
  verifyToken: ((token: string) => Promise<Identity>) | undefined;
}

function credentialsOf(request: FastifyRequest): CredentialSource {
  // `request.socket.remoteAddress`, not `request.ip`: the proxy check must never read a forwarded header.
  return { headers: request.headers, bearer: presentedToken(request), remoteAddress: request.socket.remoteAddress };
}

function refuse(reply: FastifyReply, error: AuthenticationError): FastifyReply {
  if (error.code === 'INTERNAL') return reply.code(503).send({ code: 'INTERNAL', message: error.message });
  return reply.code(error.code === 'FORBIDDEN' ? 403 : 401).header('www-authenticate', 'Bearer').send({ code: error.code, message: error.message });
}

/** Resolve the identity once, before any handler; refuse the request without one. */
function identityGuard(authenticator: Authenticator): onRequestAsyncHookHandler {
  return async function requireIdentity(request, reply) {
    try {
      request.user = await authenticator.authenticate(credentialsOf(request));
      return undefined;
    } catch (error) {
      if (!(error instanceof AuthenticationError)) throw error;
      // The reason, never the credential: jose's messages and ours do not quote the token.
      if (error.code === 'INTERNAL') request.log.warn({ reason: error.message }, 'could not check a sign-in');
      else request.log.debug({ reason: error.message }, 'refused a sign-in');
      return refuse(reply, error);
    }
  };
}

/** The authentication INTERTHOUGHT_AUTH asks for. */
export function authenticationOf(config: Pick<Config, 'token' | 'identity'>): Authentication {
  const identity = config.identity;
  if (identity?.mode === 'jwt') {
    const authenticator = createJwtAuthenticator(identity.jwt);
    return { guard: identityGuard(authenticator), verifyToken: authenticator.verifyToken };
  }
  if (identity?.mode === 'proxy') return { guard: identityGuard(createProxyAuthenticator(identity.proxy)), verifyToken: undefined };
  // `token` exactly as before identities: a shared secret and no user.
  return { guard: config.token === undefined ? undefined : requireToken(config.token), verifyToken: undefined };
}

/** Decorates the app with its `authentication` and every request with `user` (undefined until a guard sets it). */
export const authenticationPlugin = fp(
  async (app: FastifyInstance, options: { config: Pick<Config, 'token' | 'identity'> }) => {
    app.decorateRequest('user', undefined);
    app.decorate('authentication', authenticationOf(options.config));
  },
  { name: 'authentication' },
);
