import type { ProxyConfig } from '../config/auth-config.js';
import { AuthenticationError, type Authenticator, type CredentialSource, type Identity } from './identity.js';
import { TrustedProxies } from './trusted-proxies.js';

const MAX_HEADER_CHARS = 256;

function headerValue(headers: CredentialSource['headers'], name: string): string | undefined {
  const raw = headers[name];
  // A repeated header is ambiguous (one copy may come from the client, past a careless proxy).
  if (typeof raw !== 'string') return undefined;
  const value = raw.trim();
  return value === '' || value.length > MAX_HEADER_CHARS ? undefined : value;
}

/**
 * Users named by an authenticating proxy (INTERTHOUGHT_AUTH=proxy: oauth2-proxy, Pomerium, an
 * nginx auth_request…) in `X-Forwarded-User` / `X-Forwarded-Email`. The headers are believed only
 * from the proxy's own address: anyone else could send them, so from elsewhere they are ignored
 * and the request is unauthenticated. A proxy sends no claims, so admins are the users (ids or
 * emails) INTERTHOUGHT_PROXY_ADMINS names.
 */
export function createProxyAuthenticator(config: ProxyConfig): Authenticator {
  const trusted = new TrustedProxies(config.trustedProxies);
  const admins = new Set(config.admins);
  return {
    async authenticate(source: CredentialSource): Promise<Identity> {
      if (!trusted.includes(source.remoteAddress)) {
        throw new AuthenticationError('UNAUTHORIZED', 'Sign in through the proxy in front of this server.');
      }
      const user = headerValue(source.headers, config.userHeader);
      const email = headerValue(source.headers, config.emailHeader);
      const id = user ?? email;
      if (id === undefined) throw new AuthenticationError('UNAUTHORIZED', 'The proxy did not name a user: sign in through it again.');
      const admin = admins.has(id.toLowerCase()) || (email !== undefined && admins.has(email.toLowerCase()));
      return { id, name: user ?? id, admin };
    },
  };
}
