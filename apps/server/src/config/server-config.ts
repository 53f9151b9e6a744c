import { resolve } from 'node:path';
import { z } from 'zod';
import { ConfigError } from './config-error.js';
import { integer, optionalInteger, parseEnv, shown, type Env } from './env-values.js';
import { DEFAULT_WEB_DIR, REPO_ROOT } from './server-package.js';

/** Where the server listens, who may reach it, what it serves and where it keeps sessions. */
export interface ServerConfig {
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
  /** The built web UI (adapter-static output). */
  webDir: string;
  /**
   * The SQLite file sessions are stored in (INTERTHOUGHT_DB), absolute, or `:memory:` to keep
   * them in memory only. Default `<repository root>/data/interthought.db`; a relative
   * INTERTHOUGHT_DB is resolved from the repository root too, since `pnpm start` runs the server
   * from apps/server. `main.ts` opens it; `buildApp` uses the store it is given (in memory if none).
   */
  db: string;
  /** Newest events kept per session (INTERTHOUGHT_RETAIN_EVENTS); older ones fold into a snapshot. Unset: keep all (SQLite) or 1,000 (cluster mode, whose logs live in Redis' memory). */
  retainEventsPerSession: number | undefined;
  logLevel: LogLevel;
}

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** A bad HOST, PORT, origin or host list, web folder, database or log level. */
export class ServerConfigError extends ConfigError {
  override readonly name = 'ServerConfigError';
}

/** The value of INTERTHOUGHT_DB that keeps sessions in memory only. */
export const MEMORY_DB = ':memory:';

export const DEFAULT_DB = resolve(REPO_ROOT, 'data', 'interthought.db');

function databasePath(raw: string | undefined): string {
  const text = raw?.trim() ?? '';
  if (text === '') return DEFAULT_DB;
  return text === MEMORY_DB ? MEMORY_DB : resolve(REPO_ROOT, text);
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

const logLevel = z
  .string()
  .optional()
  .transform((raw, ctx) => {
    const level = raw?.trim().toLowerCase() || 'info';
    if ((LOG_LEVELS as readonly string[]).includes(level)) return level as LogLevel;
    ctx.issues.push({ code: 'custom', input: raw, message: `must be one of ${LOG_LEVELS.join(', ')}, got ${shown(raw ?? '')}` });
    return z.NEVER;
  });

export const ServerEnvSchema = z.object({
  HOST: z.string().optional().transform((raw) => raw?.trim() || '127.0.0.1'),
  PORT: integer(3000, 0, 65_535),
  ALLOWED_ORIGINS: originList,
  INTERTHOUGHT_ALLOWED_HOSTS: hostList,
  INTERTHOUGHT_WEB_DIR: z.string().optional().transform((raw) => raw?.trim() || DEFAULT_WEB_DIR),
  INTERTHOUGHT_DB: z.string().optional().transform(databasePath),
  INTERTHOUGHT_RETAIN_EVENTS: optionalInteger(1, 1_000_000_000),
  LOG_LEVEL: logLevel,
});

export type ServerEnv = z.infer<typeof ServerEnvSchema>;

export function serverConfigOf(vars: ServerEnv): ServerConfig {
  return {
    host: vars.HOST,
    port: vars.PORT,
    allowedOrigins: vars.ALLOWED_ORIGINS,
    allowedHosts: vars.INTERTHOUGHT_ALLOWED_HOSTS,
    webDir: vars.INTERTHOUGHT_WEB_DIR,
    db: vars.INTERTHOUGHT_DB,
    retainEventsPerSession: vars.INTERTHOUGHT_RETAIN_EVENTS,
    logLevel: vars.LOG_LEVEL,
  };
}

/** The server's own variables alone. Throws a `ServerConfigError` naming every bad one. */
export function readServerConfig(env: Env): ServerConfig {
  return serverConfigOf(parseEnv(ServerEnvSchema, env, ServerConfigError));
}
