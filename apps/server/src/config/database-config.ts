import { z } from 'zod';
import { ConfigError } from './config-error.js';
import { integer, parseEnv, type Env } from './env-values.js';

/**
 * Sessions in PostgreSQL (INTERTHOUGHT_DATABASE_URL set): instead of the SQLite file on one node;
 * with INTERTHOUGHT_REDIS_URL too, as the cluster's log (Redis then carries leases, fan-out and commands).
 */
export interface DatabaseConfig {
  /** `postgres://…` or `postgresql://…`; TLS by the URL's `sslmode` (and `sslrootcert`, `sslcert`, `sslkey`) as libpq reads them. */
  url: string;
  /** Most connections this node holds (INTERTHOUGHT_DATABASE_POOL, default 10). */
  poolSize: number;
}

/** A bad database URL or pool size. */
export class DatabaseConfigError extends ConfigError {
  override readonly name = 'DatabaseConfigError';
}

const SSL_MODES = ['disable', 'prefer', 'require', 'no-verify', 'verify-ca', 'verify-full'];

/** The URL's problem, or undefined when pg can use it. The message never repeats the URL: it may hold a password. */
function urlProblem(text: string): string | undefined {
  if (!/^postgres(ql)?:\/\//.test(text)) return 'must be a postgres://user:password@host:port/database URL (or postgresql://…)';
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'is not a URL: write postgres://user:password@host:port/database (percent-encode special characters in the password)';
  }
  if (url.hostname === '' && !url.searchParams.has('host')) return 'names no host: write postgres://user:password@host:port/database';
  const sslmode = url.searchParams.get('sslmode');
  if (sslmode !== null && !SSL_MODES.includes(sslmode)) return `has sslmode=${sslmode}; use one of ${SSL_MODES.join(', ')}`;
  return undefined;
}

export const DatabaseEnvSchema = z.object({
  INTERTHOUGHT_DATABASE_URL: z
    .string()
    .optional()
    .transform((raw, ctx) => {
      const text = raw?.trim();
      if (text === undefined || text === '') return undefined;
      const problem = urlProblem(text);
      if (problem === undefined) return text;
      ctx.issues.push({ code: 'custom', input: '', message: problem });
      return z.NEVER;
    }),
  INTERTHOUGHT_DATABASE_POOL: integer(10, 1, 1_000),
});

export type DatabaseEnv = z.infer<typeof DatabaseEnvSchema>;

export function databaseConfigOf(vars: DatabaseEnv): DatabaseConfig | undefined {
  if (vars.INTERTHOUGHT_DATABASE_URL === undefined) return undefined;
  return { url: vars.INTERTHOUGHT_DATABASE_URL, poolSize: vars.INTERTHOUGHT_DATABASE_POOL };
}

/** The database variables alone. Throws a `DatabaseConfigError` naming every bad one. */
export function readDatabaseConfig(env: Env): DatabaseConfig | undefined {
  return databaseConfigOf(parseEnv(DatabaseEnvSchema, env, DatabaseConfigError));
}
