import type { Redis } from 'ioredis';
import type { DatabaseConfig } from '../config/database-config.js';
import { openPostgresEventStore } from '../store/postgres/postgres-event-store.js';
import type { ClusterLeases, ClusterLog } from './cluster-log.js';
import { PostgresClusterLog } from './postgres/postgres-cluster-log.js';
import { PostgresLeases } from './postgres/postgres-leases.js';
import { connectRedis, quitRedis, type RedisTarget } from './redis-connection.js';
import { connectRedisEventStore } from './redis-event-store.js';
import { SessionLeases } from './session-lease.js';

/** The log a cluster node shares with the others, the leases over it, and the node's Redis connection (leases, bus, agents, publishes). */
export interface OpenedClusterLog {
  log: ClusterLog;
  leases: ClusterLeases;
  redis: Redis;
}

export interface ClusterLogOptions {
  target: RedisTarget;
  nodeId: string;
  leaseTtlMs: number;
  retainEventsPerSession: number | undefined;
  /** Set: the log is in this Postgres database and Redis carries only leases, fan-out and commands. */
  database: DatabaseConfig | undefined;
  report: (context: string, error: unknown) => void;
}

/**
 * Open the cluster's log: in Postgres when a database is configured, else in Redis. In the
 * Redis-only mode the store's client is the node's connection (one connection keeps a lease and
 * the appends under it in order); with Postgres the node opens its own client.
 */
export async function openClusterLog(options: ClusterLogOptions): Promise<OpenedClusterLog> {
  const keep = options.retainEventsPerSession;
  const leaseOptions = { nodeId: options.nodeId, ttlMs: options.leaseTtlMs };
  if (options.database === undefined) {
    const store = await connectRedisEventStore(options.target, keep === undefined ? {} : { retainEventsPerSession: keep });
    return { log: store, leases: new SessionLeases(store.redis, store.scripts, leaseOptions), redis: store.redis };
  }
  // A stalled node's transaction ends before its lease does, so the taker's raise never waits on its locks.
  const stallLimitMs = Math.max(200, Math.floor(options.leaseTtlMs / 2));
  const store = await openPostgresEventStore({ url: options.database.url, poolSize: options.database.poolSize, stallLimitMs, ...(keep === undefined ? {} : { retainEventsPerSession: keep }) });
  let redis: Redis;
  try {
    redis = await connectRedis(options.target, { connectionName: 'interthought-node' });
  } catch (error) {
    await store.close();
    throw error;
  }
  try {
    return { log: new PostgresClusterLog(store, redis, options.report), leases: new PostgresLeases(redis, store.connections, leaseOptions), redis };
  } catch (error) {
    await Promise.allSettled([store.close(), quitRedis(redis)]);
    throw error;
  }
}
