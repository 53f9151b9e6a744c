import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import fp from 'fastify-plugin';
import type { Me, ShareGrant } from '@interthought/protocol';
import type { Config } from '../config/index.js';
import type { SessionService } from '../core/session-service.js';
import { SessionGate } from '../sharing/session-gate.js';
import { ShareLinks, presentedShareToken } from '../sharing/share-links.js';
import { presentedToken, tokenMatches } from '../access/presented-token.js';
import { AuthenticationError, type CredentialSource, type Identity } from './identity.js';
import { createJwtAuthenticator } from './jwt-authenticator.js';
import { createProxyAuthenticator } from './proxy-authenticator.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The signed-in user (INTERTHOUGHT_AUTH `jwt` or `proxy`), set by the guard; undefined with `none` or `token`. */
    user: Identity | undefined;
    /** The session a share link presented with the request opens, and as what (PROTOCOL.md §21.3). */
    share: ShareGrant | undefined;
  }
  interface FastifyInstance {
    authentication: Authentication;
  }
}

/** How this server lets clients in, as the routes use it. */
export interface Authentication {
  /** The `onRequest` hook of /ws and every guarded /api route: a sign-in, a share link, or (mode `none`) nothing. */
  guard: onRequestAsyncHookHandler;
  /** Checks a replacement token for `auth.refresh`; only JWTs can be refreshed. */
  verifyToken: ((token: string) => Promise<Identity>) | undefined;
  /** Whether the server tells users apart (`jwt`, `proxy`): sessions then have owners (PROTOCOL.md §21.2). */
  usersOn: boolean;
  /** Share links: signed and checked with the server's key. */
  links: ShareLinks;
  /** Who may do what with which session (PROTOCOL.md §21.2), for the WebSocket and REST alike. */
  gate: SessionGate;
  /** `GET /api/me`: who the request's credentials say it is, or why it is not signed in. */
  describe(request: FastifyRequest): Promise<Me>;
}

/**
 * Who a request is: a user, nobody in particular (`token`: the shared token matched), or a refusal
 * (an `AuthenticationError`). Undefined on an open server (`none`).
 */
type Identify = (source: CredentialSource) => Promise<Identity | undefined>;

function credentialsOf(request: FastifyRequest): CredentialSource {
  // `request.socket.remoteAddress`, not `request.ip`: the proxy check must never read a forwarded header.
  // An injected upgrade (tests) has no socket yet.
  return { headers: request.headers, bearer: presentedToken(request), remoteAddress: (request.socket as FastifyRequest['socket'] | undefined)?.remoteAddress };
}

function refuse(reply: FastifyReply, error: AuthenticationError): FastifyReply {
  if (error.code === 'INTERNAL') return reply.code(503).send({ code: 'INTERNAL', message: error.message });
  return reply.code(error.code === 'FORBIDDEN' ? 403 : 401).header('www-authenticate', 'Bearer').send({ code: error.code, message: error.message });
}

function sharedTokenCheck(token: string): Identify {
  return async (source) => {
    if (tokenMatches(source.bearer, token)) return undefined;
    throw new AuthenticationError('UNAUTHORIZED', 'Send the server token as "Authorization: Bearer <token>" or as ?token=<token>.');
  };
}

function identifyOf(config: Pick<Config, 'token' | 'identity'>): { identify: Identify | undefined; verifyToken: Authentication['verifyToken'] } {
  const identity = config.identity;
  if (identity?.mode === 'jwt') {
    const authenticator = createJwtAuthenticator(identity.jwt);
    return { identify: (source) => authenticator.authenticate(source), verifyToken: authenticator.verifyToken };
  }
  if (identity?.mode === 'proxy') {
    const authenticator = createProxyAuthenticator(identity.proxy);
    return { identify: (source) => authenticator.authenticate(source), verifyToken: undefined };
  }
  // `token` exactly as before identities: a shared secret and no user.
  return { identify: config.token === undefined ? undefined : sharedTokenCheck(config.token), verifyToken: undefined };
}

type AuthConfig = Pick<Config, 'token' | 'identity' | 'shareSecret' | 'loginUrl'>;

/** The authentication INTERTHOUGHT_AUTH asks for; `sessions` is read when a link is first checked. */
export function authenticationOf(config: AuthConfig, sessions: () => SessionService): Authentication {
  const { identify, verifyToken } = identifyOf(config);
  const links = new ShareLinks(
    { accessFacts: (sessionId) => sessions().accessFacts(sessionId), sharingKey: () => sessions().sharingKey() },
    config.shareSecret,
  );
  const mode: Me['auth'] = config.identity?.mode ?? (config.token === undefined ? 'none' : 'token');
  const usersOn = mode === 'jwt' || mode === 'proxy';
  const gate = new SessionGate({ accessFacts: (sessionId) => sessions().accessFacts(sessionId) }, usersOn);

  /** Resolve the identity and the link once, before any handler; refuse a request with neither. */
  async function guard(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined> {
    const shareToken = presentedShareToken(request.headers, request.query);
    let deadLink: AuthenticationError | undefined;
    if (shareToken !== undefined) {
      const checked = await links.check(shareToken);
      if ('grant' in checked) request.share = checked.grant;
      else deadLink = new AuthenticationError('UNAUTHORIZED', checked.refusal);
    }
    // A dead link is refused when it is all the request has (PROTOCOL.md §21.3); beside a valid sign-in it is left out.
    if (identify === undefined) return deadLink === undefined ? undefined : refuse(reply, deadLink);
    try {
      request.user = await identify(credentialsOf(request));
      return undefined;
    } catch (error) {
      if (!(error instanceof AuthenticationError)) throw error;
      if (deadLink !== undefined && error.code !== 'INTERNAL') return refuse(reply, deadLink);
      // A link lets its holder in without an account (PROTOCOL.md §21.3): a sign-in that fails beside it is left out.
      if (request.share !== undefined && error.code !== 'INTERNAL') return undefined;
      // The reason, never the credential: jose's messages and ours do not quote the token.
      if (error.code === 'INTERNAL') request.log.warn({ reason: error.message }, 'could not check a sign-in');
      else request.log.debug({ reason: error.message }, 'refused a sign-in');
      return refuse(reply, error);
    }
  }

  async function describe(request: FastifyRequest): Promise<Me> {
    const me: Me = { auth: mode, signedIn: identify === undefined };
    if (config.loginUrl !== undefined) me.loginUrl = config.loginUrl;
    const shareToken = presentedShareToken(request.headers, request.query);
    if (shareToken !== undefined) {
      const checked = await links.check(shareToken);
      if ('grant' in checked) me.share = checked.grant;
      else me.reason = checked.refusal;
    }
    if (identify === undefined) return me;
    try {
      const user = await identify(credentialsOf(request));
      me.signedIn = true;
      if (user !== undefined) me.user = { id: user.id, name: user.name, admin: user.admin };
    } catch (error) {
      if (!(error instanceof AuthenticationError)) throw error;
      me.reason ??= credentialsOf(request).bearer === undefined && mode !== 'proxy' ? `No ${mode === 'jwt' ? 'sign-in token' : 'server token'} was presented.` : error.message;
    }
    return me;
  }

  return { guard, verifyToken, usersOn, links, gate, describe };
}

/** Decorates the app with its `authentication` and every request with `user` and `share` (undefined until a guard sets them). */
export const authenticationPlugin = fp(
  async (app: FastifyInstance, options: { config: AuthConfig }) => {
    app.decorateRequest('user', undefined);
    app.decorateRequest('share', undefined);
    app.decorate(
      'authentication',
      authenticationOf(options.config, () => app.sessions),
    );
  },
  { name: 'authentication' },
);
