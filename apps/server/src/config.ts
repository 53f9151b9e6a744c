import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { ApprovalPolicySchema, type ApprovalPolicy } from '@interthought/protocol';
import { McpConfigFileError, readMcpConfigFile, type McpServerConfig } from './tools/mcp/mcp-config-file.js';
import type { PriceTable } from './core/run/model-prices.js';
import { pricesVariable } from './price-config.js';

/** The server's settings, read once from the environment by `loadConfig`. */
export interface Config {
  host: string;
  port: number;
  /**
   * Origins allowed to open the WebSocket. `undefined` means the default policy: the same
   * origin as the Host header, and http(s)://localhost, 127.0.0.1 or [::1] on any port.
   */
  allowedOrigins: string[] | undefined;
  /**
   * Host names the server answers to besides loopback names and IP literals
   * (INTERTHOUGHT_ALLOWED_HOSTS, comma-separated; the hosts of ALLOWED_ORIGINS count too).
   * `undefined`: a loopback server answers to no other name (DNS-rebinding defence), a server on
   * another interface to any.
   */
  allowedHosts: string[] | undefined;
  /** When set, /ws and every /api route except /api/health require it (INTERTHOUGHT_AUTH=token). */
  token: string | undefined;
  /**
   * Verified users (INTERTHOUGHT_AUTH `jwt` or `proxy`). Undefined for `none` and `token`, where
   * there is no user and `token` alone decides who may connect.
   */
  identity: IdentityConfig | undefined;
  /** Pacing of the demo agent between tokens (a session's `options.tokenDelayMs` wins). */
  tokenDelayMs: number;
  /** The built web UI (adapter-static output). */
  webDir: string;
  maxFrameBytes: number;
  ratePerSec: number;
  rateBurst: number;
  maxSessionsPerConnection: number;
  /** Active sessions on the whole server. */
  maxSessions: number;
  maxSubscriptionsPerConnection: number;
  /** WebSockets open at once from one client address (INTERTHOUGHT_MAX_CONNECTIONS_PER_ADDRESS, default 64). */
  maxConnectionsPerAddress: number;
  /**
   * Running or paused sessions started from one client address (INTERTHOUGHT_MAX_ACTIVE_SESSIONS_PER_ADDRESS,
   * default 100): no one address can take every slot of `maxSessions`, whatever it reconnects.
   */
  maxActiveSessionsPerAddress: number;
  /**
   * Agent runs (session.create, a correction, session.resume) one address may start per minute
   * (INTERTHOUGHT_RUN_STARTS_PER_MINUTE_PER_ADDRESS, default 120), and the whole server
   * (INTERTHOUGHT_RUN_STARTS_PER_MINUTE, default 2400): what one client can make the server compute.
   */
  runStartsPerMinutePerAddress: number;
  runStartsPerMinute: number;
  /**
   * A signed-in user's own caps, in place of their address's (INTERTHOUGHT_MAX_ACTIVE_SESSIONS_PER_USER,
   * default 20; INTERTHOUGHT_RUN_STARTS_PER_MINUTE_PER_USER, default 60): behind a proxy every user
   * has the proxy's address, so users are counted as themselves (PROTOCOL.md §21.2).
   */
  maxActiveSessionsPerUser: number;
  runStartsPerMinutePerUser: number;
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
  /**
   * Which tool calls of sessions created without `options.approve` wait for the user's approval
   * (INTERTHOUGHT_APPROVE: `all`, `none`, or comma-separated tool names; default: none set, so
   * the tools that change something wait and those that only read do not).
   */
  defaultApprove: ApprovalPolicy | undefined;
  /** A run paused this long gives its slot back: it is stopped and marked interrupted, resumable (INTERTHOUGHT_PAUSED_RUN_TTL_MS, default 15 min). */
  pausedRunTtlMs: number;
  /** How often each WebSocket is pinged; a peer that missed the previous pong is dropped. */
  heartbeatMs: number;
  /**
   * Backpressure soft cap, in bytes (INTERTHOUGHT_SOFT_BUFFER_BYTES, default 256 KiB). While a
   * socket's `bufferedAmount` is below it, frames go straight out; above it the connection's
   * `step.delta` frames are coalesced per step (one frame with `fromSeq`…`seq`) in a small queue
   * that is flushed, in order, as the socket drains.
   */
  softBufferBytes: number;
  /**
   * Backpressure hard cap, in bytes (INTERTHOUGHT_HARD_BUFFER_BYTES, default 1 MiB; above the soft
   * cap). When the live events waiting (`bufferedAmount` plus the queue's bytes, less the answers,
   * snapshots and replays still draining, which `burstBudgetBytes` bounds) exceed it, the
   * connection is closed with 4008 "slow consumer"; the client resumes with `afterSeq` and loses nothing.
   */
  hardBufferBytes: number;
  /**
   * Per-connection burst budget, in bytes (INTERTHOUGHT_BURST_BUDGET_BYTES, default 16 MiB):
   * answers, snapshots and replays a client has not read yet when it asks for more. Past it the
   * connection is closed with 4008; the request being answered is never counted, so a replay of
   * any size reaches a reader that reads it.
   */
  burstBudgetBytes: number;
  /**
   * The SQLite file sessions are stored in (INTERTHOUGHT_DB), absolute, or `:memory:` to keep
   * them in memory only. Default `<repository root>/data/interthought.db`; a relative
   * INTERTHOUGHT_DB is resolved from the repository root too, since `pnpm start` runs the server
   * from apps/server. `main.ts` opens it; `buildApp` uses the store it is given (in memory if none).
   */
  db: string;
  /** Newest events kept per session (INTERTHOUGHT_RETAIN_EVENTS); older ones fold into a snapshot. Unset: keep all (SQLite) or 1,000 (cluster mode, whose logs live in Redis' memory). */
  retainEventsPerSession: number | undefined;
  /** Cluster mode (INTERTHOUGHT_REDIS_URL set): this process is one node of a cluster sharing Redis. Undefined: the embedded SQLite server. */
  cluster: ClusterConfig | undefined;
  /** Tools from MCP servers (INTERTHOUGHT_MCP_CONFIG names their file). Undefined: none. */
  mcp: McpConfig | undefined;
  /** Model prices in US dollars per million tokens (INTERTHOUGHT_PRICES, JSON), to cost model calls. Undefined: tokens only. */
  prices: PriceTable | undefined;
  /** Every session's token budget, which a session's `options.maxTokens` may lower (INTERTHOUGHT_MAX_TOKENS_PER_SESSION). Undefined: none. */
  maxTokensPerSession: number | undefined;
  logLevel: LogLevel;
}

export interface McpConfig {
  /** The file INTERTHOUGHT_MCP_CONFIG names, absolute (a relative one is resolved from the repository root). */
  file: string;
  servers: McpServerConfig[];
  /** How long one MCP request (start-up, listing, a tool call) may take (INTERTHOUGHT_MCP_TIMEOUT_MS, default 30 s). */
  timeoutMs: number;
}

export interface ClusterConfig {
  /** `redis://host:port/db`, `rediss://…` (TLS) or `unix:///path/to/redis.sock`. */
  redisUrl: string;
  /** This node's name (INTERTHOUGHT_NODE_ID; default a random id): who holds a lease. */
  nodeId: string;
  /** How long a node's lease on a session lives without renewal (INTERTHOUGHT_LEASE_TTL_MS, default 3,000). A dead node's sessions are taken over after it. */
  leaseTtlMs: number;
  /** How often each node looks for sessions whose owner died (INTERTHOUGHT_SWEEP_MS, default 1,000). */
  sweepMs: number;
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

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** A bad environment variable. The message names it and says what is wrong, for humans. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  constructor(readonly problems: { variable: string; problem: string }[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  ${p.variable}: ${p.problem}`).join('\n')}`);
  }
}

/** The server package's version, announced in `hello.serverVersion` and `/api/health`. */
export const SERVER_VERSION: string = (
  JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

const DEFAULT_WEB_DIR = fileURLToPath(new URL('../../web/build', import.meta.url));

/** The repository root, found from this file (apps/server/src), whatever the process's cwd. */
export const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** The value of INTERTHOUGHT_DB that keeps sessions in memory only. */
export const MEMORY_DB = ':memory:';

export const DEFAULT_DB = resolve(REPO_ROOT, 'data', 'interthought.db');

function databasePath(raw: string | undefined): string {
  const text = raw?.trim() ?? '';
  if (text === '') return DEFAULT_DB;
  return text === MEMORY_DB ? MEMORY_DB : resolve(REPO_ROOT, text);
}

function shown(raw: string): string {
  return JSON.stringify(raw.length > 40 ? `${raw.slice(0, 40)}…` : raw);
}

/** A whole-number variable within [min, max]; unset or empty gives `fallback` (`undefined`: optional). */
function wholeNumber<F extends number | undefined>(fallback: F, min: number, max: number) {
  return z
    .string()
    .optional()
    .transform((raw, ctx): number | F => {
      const text = raw?.trim() ?? '';
      if (text === '') return fallback;
      const value = /^-?\d+$/.test(text) ? Number(text) : Number.NaN;
      if (Number.isSafeInteger(value) && value >= min && value <= max) return value;
      const unset = fallback === undefined ? ', or unset' : '';
      ctx.issues.push({ code: 'custom', input: raw, message: `must be a whole number from ${min} to ${max}${unset}, got ${shown(text)}` });
      return z.NEVER;
    });
}

const integer = (fallback: number, min: number, max: number) => wholeNumber(fallback, min, max);
const optionalInteger = (min: number, max: number) => wholeNumber(undefined, min, max);

/** An optional positive number (fractions allowed, e.g. 0.5 requests per second). */
function positiveNumber(fallback: number, max: number) {
  return z
    .string()
    .optional()
    .transform((raw, ctx) => {
      const text = raw?.trim() ?? '';
      if (text === '') return fallback;
      const value = Number(text);
      if (Number.isFinite(value) && value > 0 && value <= max) return value;
      ctx.issues.push({ code: 'custom', input: raw, message: `must be a number above 0 and at most ${max}, got ${shown(text)}` });
      return z.NEVER;
    });
}

function normaliseOrigin(entry: string): string | undefined {
  try {
    const url = new URL(entry);
    const bare = url.pathname === '/' && !url.search && !url.hash && !url.username;
    return (url.protocol === 'http:' || url.protocol === 'https:') && bare ? url.origin : undefined;
  } catch {
    return undefined;
  }
}

const originList = z
  .string()
  .optional()
  .transform((raw, ctx) => {
    const entries = (raw ?? '').split(',').map((entry) => entry.trim()).filter(Boolean);
    if (entries.length === 0) return undefined;
    const origins: string[] = [];
    for (const entry of entries) {
      const origin = normaliseOrigin(entry);
      if (origin) origins.push(origin);
      else ctx.issues.push({ code: 'custom', input: raw, message: `${shown(entry)} is not an origin: use scheme://host[:port], e.g. https://example.com` });
    }
    return origins;
  });

/** Comma-separated host names, lower-cased; empty means unset. */
const hostList = z
  .string()
  .optional()
  .transform((raw, ctx) => {
    const entries = (raw ?? '').split(',').map((entry) => entry.trim().toLowerCase()).filter(Boolean);
    if (entries.length === 0) return undefined;
    for (const entry of entries) {
      if (!/^[a-z0-9.-]+$/.test(entry)) ctx.issues.push({ code: 'custom', input: raw, message: `${shown(entry)} is not a host name: use names like thought.example.com, without scheme or port` });
    }
    return entries;
  });

/** INTERTHOUGHT_APPROVE: `all`, `none` or tool names, as `options.approve` takes them. */
const approvePolicy = z
  .string()
  .optional()
  .transform((raw, ctx): ApprovalPolicy | undefined => {
    const value = raw?.trim() ?? '';
    if (value === '') return undefined;
    if (value === 'all' || value === 'none') return value;
    const names = value.split(',').map((name) => name.trim()).filter(Boolean);
    const parsed = ApprovalPolicySchema.safeParse(names);
    if (parsed.success) return parsed.data;
    ctx.issues.push({ code: 'custom', input: raw, message: `must be "all", "none" or a comma-separated list of tool names (1 to 64 of them, each 1 to 64 characters), got ${shown(value)}` });
    return z.NEVER;
  });

/** A trimmed optional string; empty means unset. */
const optionalText = z.string().optional().transform((raw) => raw?.trim() || undefined);

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

const EnvSchema = z.object({
  HOST: z.string().optional().transform((raw) => raw?.trim() || '127.0.0.1'),
  PORT: integer(3000, 0, 65_535),
  ALLOWED_ORIGINS: originList,
  INTERTHOUGHT_ALLOWED_HOSTS: hostList,
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
  INTERTHOUGHT_TOKEN_DELAY_MS: integer(35, 0, 5_000),
  INTERTHOUGHT_WEB_DIR: z.string().optional().transform((raw) => raw?.trim() || DEFAULT_WEB_DIR),
  INTERTHOUGHT_MAX_FRAME_BYTES: integer(65_536, 1_024, 16 * 1024 * 1024),
  INTERTHOUGHT_RATE_PER_SEC: positiveNumber(20, 100_000),
  INTERTHOUGHT_RATE_BURST: integer(40, 1, 100_000),
  INTERTHOUGHT_MAX_SESSIONS_PER_CONNECTION: integer(20, 1, 100_000),
  INTERTHOUGHT_MAX_SESSIONS: integer(1_000, 1, 1_000_000),
  INTERTHOUGHT_MAX_SUBSCRIPTIONS_PER_CONNECTION: integer(50, 1, 100_000),
  INTERTHOUGHT_MAX_CONNECTIONS_PER_ADDRESS: integer(64, 1, 10_000_000),
  INTERTHOUGHT_MAX_ACTIVE_SESSIONS_PER_ADDRESS: integer(100, 1, 10_000_000),
  INTERTHOUGHT_RUN_STARTS_PER_MINUTE_PER_ADDRESS: integer(120, 1, 100_000_000),
  INTERTHOUGHT_RUN_STARTS_PER_MINUTE: integer(2_400, 1, 100_000_000),
  INTERTHOUGHT_MAX_ACTIVE_SESSIONS_PER_USER: integer(20, 1, 10_000_000),
  INTERTHOUGHT_RUN_STARTS_PER_MINUTE_PER_USER: integer(60, 1, 100_000_000),
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
  INTERTHOUGHT_APPROVE: approvePolicy,
  INTERTHOUGHT_PAUSED_RUN_TTL_MS: integer(15 * 60_000, 1_000, 7 * 24 * 3_600_000),
  INTERTHOUGHT_HEARTBEAT_MS: integer(30_000, 10, 3_600_000),
  INTERTHOUGHT_SOFT_BUFFER_BYTES: integer(256 * 1024, 1_024, 1024 * 1024 * 1024),
  INTERTHOUGHT_HARD_BUFFER_BYTES: integer(1024 * 1024, 2_048, 4 * 1024 * 1024 * 1024),
  INTERTHOUGHT_BURST_BUDGET_BYTES: integer(16 * 1024 * 1024, 1_024, 4 * 1024 * 1024 * 1024),
  INTERTHOUGHT_DB: z.string().optional().transform(databasePath),
  INTERTHOUGHT_RETAIN_EVENTS: optionalInteger(1, 1_000_000_000),
  INTERTHOUGHT_REDIS_URL: z
    .string()
    .optional()
    .transform((raw, ctx) => {
      const url = raw?.trim();
      if (url === undefined || url === '') return undefined;
      if (/^(rediss?:\/\/[^\s]+|unix:\/\/\/[^\s]+)$/.test(url)) return url;
      ctx.issues.push({ code: 'custom', input: '', message: 'must be redis://host:port/db, rediss://… or unix:///path/to/redis.sock' });
      return z.NEVER;
    }),
  INTERTHOUGHT_NODE_ID: z
    .string()
    .optional()
    .transform((raw, ctx) => {
      const id = raw?.trim();
      if (id === undefined || id === '') return undefined;
      if (/^[A-Za-z0-9._-]{1,64}$/.test(id)) return id;
      ctx.issues.push({ code: 'custom', input: id, message: `must be 1 to 64 letters, digits, ".", "_" or "-", got ${shown(id)}` });
      return z.NEVER;
    }),
  INTERTHOUGHT_LEASE_TTL_MS: integer(3_000, 300, 600_000),
  INTERTHOUGHT_SWEEP_MS: integer(1_000, 50, 600_000),
  INTERTHOUGHT_MCP_CONFIG: z.string().optional().transform((raw) => (raw?.trim() ? resolve(REPO_ROOT, raw.trim()) : undefined)),
  INTERTHOUGHT_MCP_TIMEOUT_MS: integer(30_000, 50, 3_600_000),
  INTERTHOUGHT_PRICES: pricesVariable,
  INTERTHOUGHT_MAX_TOKENS_PER_SESSION: optionalInteger(1, 1_000_000_000_000),
  LOG_LEVEL: z
    .string()
    .optional()
    .transform((raw, ctx) => {
      const level = raw?.trim().toLowerCase() || 'info';
      if ((LOG_LEVELS as readonly string[]).includes(level)) return level as LogLevel;
      ctx.issues.push({ code: 'custom', input: raw, message: `must be one of ${LOG_LEVELS.join(', ')}, got ${shown(raw ?? '')}` });
      return z.NEVER;
    }),
});

type EnvVars = z.infer<typeof EnvSchema>;

const JWT_VARIABLES = ['INTERTHOUGHT_JWT_SECRET', 'INTERTHOUGHT_JWKS_URL', 'INTERTHOUGHT_JWT_ISSUER', 'INTERTHOUGHT_JWT_AUDIENCE', 'INTERTHOUGHT_JWT_ADMIN_CLAIM'];
const PROXY_VARIABLES = ['INTERTHOUGHT_PROXY_USER_HEADER', 'INTERTHOUGHT_PROXY_EMAIL_HEADER', 'INTERTHOUGHT_TRUSTED_PROXIES', 'INTERTHOUGHT_PROXY_ADMINS'];

/**
 * INTERTHOUGHT_AUTH and the variables of its mode, checked together: a combination that would
 * leave the server more open than its operator meant (a secret set but ignored, a token beside
 * JWTs) is refused rather than guessed at.
 */
function identityOf(vars: EnvVars, env: Record<string, string | undefined>): IdentityConfig | undefined {
  const mode: AuthMode = vars.INTERTHOUGHT_AUTH ?? (vars.INTERTHOUGHT_TOKEN === undefined ? 'none' : 'token');
  const problems: { variable: string; problem: string }[] = [];
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
  if (problems.length > 0) throw new ConfigError(problems);
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

/** The MCP servers file, read and checked now so that a mistake in it stops start-up with its server and field named. */
function mcpOf(vars: EnvVars): McpConfig | undefined {
  const file = vars.INTERTHOUGHT_MCP_CONFIG;
  if (file === undefined) return undefined;
  try {
    return { file, servers: readMcpConfigFile(file), timeoutMs: vars.INTERTHOUGHT_MCP_TIMEOUT_MS };
  } catch (error) {
    if (!(error instanceof McpConfigFileError)) throw error;
    throw new ConfigError(error.problems.map((problem) => ({ variable: 'INTERTHOUGHT_MCP_CONFIG', problem })));
  }
}

/** Read and validate the configuration. Throws a `ConfigError` naming every bad variable. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const parsed = EnvSchema.safeParse(env);
  if (!parsed.success) {
    throw new ConfigError(
      parsed.error.issues.map((issue) => ({ variable: String(issue.path[0] ?? '(environment)'), problem: issue.message })),
    );
  }
  const vars = parsed.data;
  if (vars.INTERTHOUGHT_HARD_BUFFER_BYTES <= vars.INTERTHOUGHT_SOFT_BUFFER_BYTES) {
    throw new ConfigError([
      {
        variable: 'INTERTHOUGHT_HARD_BUFFER_BYTES',
        problem: `must be above INTERTHOUGHT_SOFT_BUFFER_BYTES (${vars.INTERTHOUGHT_SOFT_BUFFER_BYTES}), got ${vars.INTERTHOUGHT_HARD_BUFFER_BYTES}`,
      },
    ]);
  }
  const identity = identityOf(vars, env);
  const mcp = mcpOf(vars);
  return {
    host: vars.HOST,
    port: vars.PORT,
    allowedOrigins: vars.ALLOWED_ORIGINS,
    allowedHosts: vars.INTERTHOUGHT_ALLOWED_HOSTS,
    token: vars.INTERTHOUGHT_TOKEN,
    identity,
    tokenDelayMs: vars.INTERTHOUGHT_TOKEN_DELAY_MS,
    webDir: vars.INTERTHOUGHT_WEB_DIR,
    maxFrameBytes: vars.INTERTHOUGHT_MAX_FRAME_BYTES,
    ratePerSec: vars.INTERTHOUGHT_RATE_PER_SEC,
    rateBurst: vars.INTERTHOUGHT_RATE_BURST,
    maxSessionsPerConnection: vars.INTERTHOUGHT_MAX_SESSIONS_PER_CONNECTION,
    maxSessions: vars.INTERTHOUGHT_MAX_SESSIONS,
    maxSubscriptionsPerConnection: vars.INTERTHOUGHT_MAX_SUBSCRIPTIONS_PER_CONNECTION,
    maxConnectionsPerAddress: vars.INTERTHOUGHT_MAX_CONNECTIONS_PER_ADDRESS,
    maxActiveSessionsPerAddress: vars.INTERTHOUGHT_MAX_ACTIVE_SESSIONS_PER_ADDRESS,
    runStartsPerMinutePerAddress: vars.INTERTHOUGHT_RUN_STARTS_PER_MINUTE_PER_ADDRESS,
    runStartsPerMinute: vars.INTERTHOUGHT_RUN_STARTS_PER_MINUTE,
    maxActiveSessionsPerUser: vars.INTERTHOUGHT_MAX_ACTIVE_SESSIONS_PER_USER,
    runStartsPerMinutePerUser: vars.INTERTHOUGHT_RUN_STARTS_PER_MINUTE_PER_USER,
    loginUrl: vars.INTERTHOUGHT_LOGIN_URL,
    publicUrl: vars.INTERTHOUGHT_PUBLIC_URL,
    shareSecret: vars.INTERTHOUGHT_SHARE_SECRET,
    defaultApprove: vars.INTERTHOUGHT_APPROVE,
    pausedRunTtlMs: vars.INTERTHOUGHT_PAUSED_RUN_TTL_MS,
    heartbeatMs: vars.INTERTHOUGHT_HEARTBEAT_MS,
    softBufferBytes: vars.INTERTHOUGHT_SOFT_BUFFER_BYTES,
    hardBufferBytes: vars.INTERTHOUGHT_HARD_BUFFER_BYTES,
    burstBudgetBytes: vars.INTERTHOUGHT_BURST_BUDGET_BYTES,
    db: vars.INTERTHOUGHT_DB,
    retainEventsPerSession: vars.INTERTHOUGHT_RETAIN_EVENTS,
    cluster:
      vars.INTERTHOUGHT_REDIS_URL === undefined
        ? undefined
        : {
            redisUrl: vars.INTERTHOUGHT_REDIS_URL,
            nodeId: vars.INTERTHOUGHT_NODE_ID ?? `node-${randomBytes(4).toString('hex')}`,
            leaseTtlMs: vars.INTERTHOUGHT_LEASE_TTL_MS,
            sweepMs: vars.INTERTHOUGHT_SWEEP_MS,
          },
    mcp,
    prices: vars.INTERTHOUGHT_PRICES,
    maxTokensPerSession: vars.INTERTHOUGHT_MAX_TOKENS_PER_SESSION,
    logLevel: vars.LOG_LEVEL,
  };
}
