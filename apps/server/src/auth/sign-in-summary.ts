import type { Config } from '../config/index.js';

/**
 * The line the server prints at start about who may use it, so an operator sees at once which
 * sign-in is on (and a mistyped mode is not silently open). Undefined without sign-in (`none`),
 * which prints nothing, as before identities. Never shows a secret or a token.
 */
export function signInSummary(config: Pick<Config, 'token' | 'identity'>): string | undefined {
  const { identity } = config;
  if (identity?.mode === 'jwt') {
    const keys = identity.jwt.secret !== undefined ? 'an HS256 shared secret' : `keys from ${new URL(identity.jwt.jwksUrl ?? '').host}`;
    return `Sign-in: JWT bearer tokens, checked with ${keys}.`;
  }
  if (identity?.mode === 'proxy') return `Sign-in: the user named by the ${identity.proxy.userHeader} header, from trusted proxies only.`;
  if (config.token !== undefined) return 'Sign-in: the shared token (INTERTHOUGHT_TOKEN).';
  return undefined;
}
