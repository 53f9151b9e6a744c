import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { ConfigError } from './config-error.js';
import { integer, parseEnv, shown, type Env } from './env-values.js';

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

/** A bad Redis address, node name or lease timing. */
export class ClusterConfigError extends ConfigError {
  override readonly name = 'ClusterConfigError';
}

export const ClusterEnvSchema = z.object({
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
});

export type ClusterEnv = z.infer<typeof ClusterEnvSchema>;

/** Cluster mode when INTERTHOUGHT_REDIS_URL is set; undefined: the embedded SQLite server. */
export function clusterConfigOf(vars: ClusterEnv): ClusterConfig | undefined {
  if (vars.INTERTHOUGHT_REDIS_URL === undefined) return undefined;
  return {
    redisUrl: vars.INTERTHOUGHT_REDIS_URL,
    nodeId: vars.INTERTHOUGHT_NODE_ID ?? `node-${randomBytes(4).toString('hex')}`,
    leaseTtlMs: vars.INTERTHOUGHT_LEASE_TTL_MS,
    sweepMs: vars.INTERTHOUGHT_SWEEP_MS,
  };
}

/** The cluster variables alone. Throws a `ClusterConfigError` naming every bad one. */
export function readClusterConfig(env: Env): ClusterConfig | undefined {
  return clusterConfigOf(parseEnv(ClusterEnvSchema, env, ClusterConfigError));
}
