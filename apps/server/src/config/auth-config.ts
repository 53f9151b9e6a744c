import { isIP } from 'node:net';
import { z } from 'zod';
import { ConfigError, type ConfigProblem } from './config-error.js';
import { optionalText, parseEnv, shown, type Env } from './env-values.js';

/** Who may connect (a shared token, or verified users), where they sign in, and how share links are signed. */
export interface AuthConfig {
  /** When set, /ws and every /api route except /api/health require it (INTERTHOUGHT_AUTH=token). */
  token: string | undefined;
  /**
   * Verified users (INTERTHOUGHT_AUTH `jwt` or `proxy`). Undefined for `none` and `token`, where
   * there is no user and `token` alone decides who may connect.
   */
  identity: IdentityConfig | undefined;
  /** Where the operator's sign-in page is (INTERTHOUGHT_LOGIN_URL): the web UI links to it. */
  loginUrl: string | undefined;
  /**
   * The key share links are signed with (INTERTHOUGHT_SHARE_SECRET, 32+ characters). Unset: a random
   * key the store keeps, so links work on every node and after a restart.
   */
  shareSecret: string | undefined;
  /**
   * The address people open the server at (INTERTHOUGHT_PUBLIC_URL), for the links the server makes;
   * unset: the `Host` the request that makes the link came to.
   */
  publicUrl: string | undefined;
}

/** How users are identified (see `src/auth/`). */
export type IdentityConfig = { mode: 'jwt'; jwt: JwtConfig } | { mode: 'proxy'; proxy: ProxyConfig };

export interface JwtConfig {
  /** HS256 shared secret (INTERTHOUGHT_JWT_SECRET); exactly one of `secret` and `jwksUrl` is set. */
  secret: string | undefined;
  /** RS256/ES256 keys (INTERTHOUGHT_JWKS_URL), fetched and cached, refetched for an unknown `kid`. */
  jwksUrl: string | undefined;
  /** Required `iss` (INTERTHOUGHT_JWT_ISSUER), when set. */
  issuer: string | undefined;
  /** Required `aud` (INTERTHOUGHT_JWT_AUDIENCE), when set. */
  audience: string | undefined;
  /** Which claim makes a user an admin (INTERTHOUGHT_JWT_ADMIN_CLAIM, `claim` or `claim=value`); unset: nobody is. */
  adminClaim: { claim: string; value: string } | undefined;
  /** How soon an unknown `kid` may refetch the JWKS again (no variable: jose's 30 s; tests shorten it). */
  jwksCooldownMs?: number;
}

export interface ProxyConfig {
  /** Lower-cased header naming the user (INTERTHOUGHT_PROXY_USER_HEADER, default x-forwarded-user). */
  userHeader: string;
  /** Lower-cased header with the user's email (INTERTHOUGHT_PROXY_EMAIL_HEADER, default x-forwarded-email). */
  emailHeader: string;
  /** IPs and CIDRs (INTERTHOUGHT_TRUSTED_PROXIES) whose requests' headers are believed; never empty. */
  trustedProxies: string[];
  /** Users (ids or emails, lower-cased) who are admins (INTERTHOUGHT_PROXY_ADMINS, comma-separated): a proxy sends no claims. */
  admins: string[];
}

export const AUTH_MODES = ['none', 'token', 'jwt', 'proxy'] as const;
export type AuthMode = (typeof AUTH_MODES)[number];

/** A bad sign-in variable, or a combination that would leave the server more open than meant. */
export class AuthConfigError extends ConfigError {
  override readonly name = 'AuthConfigError';
}

const authMode = z
  .string()
  .optional()
  .transform((raw, ctx): AuthMode | undefined => {
    const mode = raw?.trim().toLowerCase() ?? '';
    if (mode === '') return undefined;
    if ((AUTH_MODES as readonly string[]).includes(mode)) return mode as AuthMode;
    ctx.issues.push({ code: 'custom', input: raw, message: `must be one of ${AUTH_MODES.join(', ')}, got ${shown(mode)}` });
    return z.NEVER;
  });

/** An http(s) address people open (a sign-in page, the server's public address), without a trailing slash. */
const httpUrl = z
  .string()
  .optional()
  .transform((raw, ctx) => {
    const text = raw?.trim() ?? '';
    if (text === '') return undefined;
    if (URL.canParse(text) && /^https?:$/.test(new URL(text).protocol)) return text.replace(/\/+$/, '');
    ctx.issues.push({ code: 'custom', input: text, message: `must be an http:// or https:// address, got ${shown(text)}` });
    return z.NEVER;
  });

/** An HS256 secret: as long as the hash (32 bytes), or guessing it offline is within reach. */
const jwtSecret = z
  .string()
  .optional()
  .transform((raw, ctx) => {
    if (raw === undefined || raw === '') return undefined;
    if (raw.length >= 32 && !/\s/.test(raw)) return raw;
    ctx.issues.push({ code: 'custom', input: '', message: 'must be at least 32 characters without spaces, e.g. from `openssl rand -base64 48` (the value is not shown)' });
    return z.NEVER;
  });

/** The JWKS must come over https: keys fetched in clear could be swapped. Plain http only on loopback (a local IdP, tests). */
const jwksUrl = z
  .string()
  .optional()
  .transform((raw, ctx) => {
    const text = raw?.trim() ?? '';
    if (text === '') return undefined;
    let url: URL | undefined;
    try {
      url = new URL(text);
    } catch {
      url = undefined;
    }
    const loopback = url !== undefined && ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname);
    if (url !== undefined && (url.protocol === 'https:' || (url.protocol === 'http:' && loopback))) return url.href;
    ctx.issues.push({ code: 'custom', input: raw, message: `must be an https:// URL of a JSON Web Key Set (http:// only on localhost), got ${shown(text)}` });
    return z.NEVER;
  });

/** `claim` (true, "admin", or a list containing "admin") or `claim=value` (equal to value, or a list containing it). */
const adminClaim = z
  .string()
  .optional()
  .transform((raw, ctx) => {
    const text = raw?.trim() ?? '';
    if (text === '') return undefined;
    const match = /^([^\s=]{1,256})(?:=(\S{1,256}))?$/.exec(text);
    if (match?.[1] !== undefined) return { claim: match[1], value: match[2] ?? 'admin' };
    ctx.issues.push({ code: 'custom', input: raw, message: `must be a claim name, optionally with =value (e.g. "roles", "roles=interthought-admin", "is_admin"), got ${shown(text)}` });
    return z.NEVER;
  });

/** An HTTP header name, lower-cased as Node presents them. */
function headerName(fallback: string) {
  return z
    .string()
    .optional()
    .transform((raw, ctx) => {
      const name = raw?.trim().toLowerCase() ?? '';
      if (name === '') return fallback;
      if (/^[a-z0-9!#$%&'*+.^_`|~-]{1,128}$/.test(name)) return name;
      ctx.issues.push({ code: 'custom', input: raw, message: `must be an HTTP header name such as X-Forwarded-User, got ${shown(name)}` });
      return z.NEVER;
    });
}

/** Comma-separated IPs and CIDRs (`10.0.0.0/8`, `fd00::/8`); empty means unset. */
const addressList = z
  .string()
  .optional()
  .transform((raw, ctx) => {
    const entries = (raw ?? '').split(',').map((entry) => entry.trim()).filter(Boolean);
    if (entries.length === 0) return undefined;
    for (const entry of entries) {
      const [address = '', prefix, extra] = entry.split('/');
      const family = isIP(address);
      const bits = family === 4 ? 32 : 128;
      const prefixOk = prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= bits);
      if (family === 0 || !prefixOk || extra !== undefined) {
        ctx.issues.push({ code: 'custom', input: raw, message: `${shown(entry)} is not an IP address or CIDR range (e.g. 10.0.0.5, 10.0.0.0/8, fd00::/8)` });
      }
    }
    return entries;
  });

export const AuthEnvSchema = z.object({
  INTERTHOUGHT_TOKEN: z
    .string()
    .optional()
    .transform((raw, ctx) => {
      if (raw === undefined || raw === '') return undefined;
      if (raw.trim() === raw && raw.length >= 8 && !/\s/.test(raw)) return raw;
      ctx.issues.push({ code: 'custom', input: '', message: 'must be at least 8 characters without spaces (the value is not shown)' });
      return z.NEVER;
    }),
  INTERTHOUGHT_AUTH: authMode,
  INTERTHOUGHT_JWT_SECRET: jwtSecret,
  INTERTHOUGHT_JWKS_URL: jwksUrl,
  INTERTHOUGHT_JWT_ISSUER: optionalText,
  INTERTHOUGHT_JWT_AUDIENCE: optionalText,
  INTERTHOUGHT_JWT_ADMIN_CLAIM: adminClaim,
  INTERTHOUGHT_PROXY_USER_HEADER: headerName('x-forwarded-user'),
  INTERTHOUGHT_PROXY_EMAIL_HEADER: headerName('x-forwarded-email'),
  INTERTHOUGHT_TRUSTED_PROXIES: addressList,
  INTERTHOUGHT_PROXY_ADMINS: z
    .string()
    .optional()
    .transform((raw) => (raw ?? '').split(',').map((name) => name.trim().toLowerCase()).filter((name) => name !== '')),
  INTERTHOUGHT_LOGIN_URL: httpUrl,
  INTERTHOUGHT_PUBLIC_URL: httpUrl,
  INTERTHOUGHT_SHARE_SECRET: z
    .string()
    .optional()
    .transform((raw, ctx) => {
      if (raw === undefined || raw === '') return undefined;
      if (raw.length >= 32) return raw;
      ctx.issues.push({ code: 'custom', input: '', message: 'must be at least 32 characters (the value is not shown)' });
      return z.NEVER;
    }),
});

export type AuthEnv = z.infer<typeof AuthEnvSchema>;

const JWT_VARIABLES = ['INTERTHOUGHT_JWT_SECRET', 'INTERTHOUGHT_JWKS_URL', 'INTERTHOUGHT_JWT_ISSUER', 'INTERTHOUGHT_JWT_AUDIENCE', 'INTERTHOUGHT_JWT_ADMIN_CLAIM'];
const PROXY_VARIABLES = ['INTERTHOUGHT_PROXY_USER_HEADER', 'INTERTHOUGHT_PROXY_EMAIL_HEADER', 'INTERTHOUGHT_TRUSTED_PROXIES', 'INTERTHOUGHT_PROXY_ADMINS'];

/**
 * INTERTHOUGHT_AUTH and the variables of its mode, checked together: a combination that would
 * leave the server more open than its operator meant (a secret set but ignored, a token beside
 * JWTs) is refused rather than guessed at.
 */
function identityOf(vars: AuthEnv, env: Env): IdentityConfig | undefined {
  const mode: AuthMode = vars.INTERTHOUGHT_AUTH ?? (vars.INTERTHOUGHT_TOKEN === undefined ? 'none' : 'token');
  const problems: ConfigProblem[] = [];
  const isSet = (name: string) => (env[name]?.trim() ?? '') !== '';
  if (vars.INTERTHOUGHT_TOKEN !== undefined && mode !== 'token') {
    problems.push({ variable: 'INTERTHOUGHT_TOKEN', problem: `is set, but INTERTHOUGHT_AUTH is ${mode}: unset INTERTHOUGHT_TOKEN, or set INTERTHOUGHT_AUTH=token to keep the shared token.` });
  }
  if (mode === 'token' && vars.INTERTHOUGHT_TOKEN === undefined) {
    problems.push({ variable: 'INTERTHOUGHT_AUTH', problem: 'is token, but INTERTHOUGHT_TOKEN is not set: set the shared token clients must present.' });
  }
  for (const name of JWT_VARIABLES) {
    if (mode !== 'jwt' && isSet(name)) problems.push({ variable: name, problem: `is set, but INTERTHOUGHT_AUTH is ${mode}: set INTERTHOUGHT_AUTH=jwt to verify JWTs, or unset ${name}.` });
  }
  for (const name of PROXY_VARIABLES) {
    if (mode !== 'proxy' && isSet(name)) problems.push({ variable: name, problem: `is set, but INTERTHOUGHT_AUTH is ${mode}: set INTERTHOUGHT_AUTH=proxy to take users from a proxy's headers, or unset ${name}.` });
  }
  if (mode === 'jwt') {
    const secret = vars.INTERTHOUGHT_JWT_SECRET;
    const jwks = vars.INTERTHOUGHT_JWKS_URL;
    if ((secret === undefined) === (jwks === undefined)) {
      problems.push({
        variable: 'INTERTHOUGHT_AUTH',
        problem: `is jwt, which needs exactly one way to check signatures, and ${secret === undefined ? 'neither is set' : 'both are set'}: INTERTHOUGHT_JWT_SECRET (HS256, a shared secret of 32+ characters) or INTERTHOUGHT_JWKS_URL (RS256/ES256, your identity provider's key set).`,
      });
    }
  }
  if (mode === 'proxy' && vars.INTERTHOUGHT_TRUSTED_PROXIES === undefined) {
    problems.push({
      variable: 'INTERTHOUGHT_TRUSTED_PROXIES',
      problem: 'must be set when INTERTHOUGHT_AUTH is proxy: the comma-separated IPs or CIDRs of the proxy that signs users in. Headers from any other address are ignored, so without it nobody could sign in.',
    });
  }
  if (problems.length > 0) throw new AuthConfigError(problems);
  if (mode === 'jwt') {
    return {
      mode,
      jwt: {
        secret: vars.INTERTHOUGHT_JWT_SECRET,
        jwksUrl: vars.INTERTHOUGHT_JWKS_URL,
        issuer: vars.INTERTHOUGHT_JWT_ISSUER,
        audience: vars.INTERTHOUGHT_JWT_AUDIENCE,
        adminClaim: vars.INTERTHOUGHT_JWT_ADMIN_CLAIM,
      },
    };
  }
  if (mode === 'proxy') {
    return {
      mode,
      proxy: {
        userHeader: vars.INTERTHOUGHT_PROXY_USER_HEADER,
        emailHeader: vars.INTERTHOUGHT_PROXY_EMAIL_HEADER,
        trustedProxies: vars.INTERTHOUGHT_TRUSTED_PROXIES ?? [],
        admins: vars.INTERTHOUGHT_PROXY_ADMINS,
      },
    };
  }
  return undefined;
}

/** Sign-in, users and share links, checked together. Throws an `AuthConfigError` for a combination it refuses. */
export function authConfigOf(vars: AuthEnv, env: Env): AuthConfig {
  return {
    token: vars.INTERTHOUGHT_TOKEN,
    identity: identityOf(vars, env),
    loginUrl: vars.INTERTHOUGHT_LOGIN_URL,
    shareSecret: vars.INTERTHOUGHT_SHARE_SECRET,
    publicUrl: vars.INTERTHOUGHT_PUBLIC_URL,
  };
}

/** The sign-in variables alone. Throws an `AuthConfigError` naming every bad one. */
export function readAuthConfig(env: Env): AuthConfig {
  return authConfigOf(parseEnv(AuthEnvSchema, env, AuthConfigError), env);
}
