import type { RedisOptions } from 'ioredis';
import type { ClusterConfig } from '../config/cluster-config.js';
import { startSessionManager, type SessionManager, type SessionManagerDeps } from '../core/session-manager.js';
import { AgentDirectory, type LocalWorkers } from './agent-directory.js';
import { ClusterPlacement } from './cluster-placement.js';
import { NodeBus } from './node-bus.js';
import { OwnedAppends } from './owned-appends.js';
import { Ownership } from './ownership.js';
import type { RedisTarget } from './redis-connection.js';
import { RedisFanout } from './redis-fanout.js';
import { SessionChannel } from './session-channel.js';
import type { ClusterLog } from './cluster-log.js';
import { openClusterLog } from './open-cluster-log.js';
import type { DatabaseConfig } from '../config/database-config.js';
import { buildCorrectionIndex } from '../corrections/correction-index-start.js';
import { indexLessons } from '../corrections/lessons/index.js';

/** A running cluster node: the session core the transport uses (with the cluster's adapters), and the log it closes last. */
export interface ClusterNode {
  sessions: SessionManager;
  store: ClusterLog;
}

/** `unix:///path` names a socket, which ioredis takes as `{ path }`; `redis://` and `rediss://` URLs it reads itself. */
export function redisTarget(url: string): RedisTarget {
  if (url.startsWith('unix://')) return { path: url.slice('unix://'.length) } satisfies RedisOptions;
  return url;
}

/** How long a command routed to a dead owner waits for its lease to expire before it fails. */
function takeoverWaitMs(config: ClusterConfig): number {
  return config.leaseTtlMs + config.sweepMs + 2_000;
}

/**
 * Join the cluster at `config.redisUrl`: open the log (in Postgres when `config.database` is set,
 * else in Redis), connect the session channel and the node bus,
 * then start the one session core with the cluster's adapters — leases and routing for where
 * sessions run, the shared log and channel for how clients follow them, the bus for the list —
 * which runs only the sessions this node owns. The node's `workers` are published to the others,
 * so runs of a remote agent start where a worker for it is. Fails at once when Redis is unreachable.
 */
export async function startClusterNode(
  config: ClusterConfig & { retainEventsPerSession: number | undefined; database?: DatabaseConfig | undefined },
  core: Omit<SessionManagerDeps, 'store' | 'recoverInterrupted' | 'cluster'>,
  workers: LocalWorkers,
): Promise<ClusterNode> {
  const target = redisTarget(config.redisUrl);
  const report = core.reportError ?? ((context: string, error: unknown) => console.error(`[cluster ${config.nodeId}] ${context}:`, error));
  const { log: store, leases, redis } = await openClusterLog({
    target,
    nodeId: config.nodeId,
    leaseTtlMs: config.leaseTtlMs,
    retainEventsPerSession: config.retainEventsPerSession,
    database: config.database,
    report,
  });
  // A store from before the index gets one, once (a second node starting meanwhile writes the same records).
  await buildCorrectionIndex(store, report);
  const ownership = new Ownership(leases, store, report, config.sweepMs);
  const appends = new OwnedAppends(store, ownership);
  const fanout = new RedisFanout(store, redis, await SessionChannel.open(target), report);
  const bus = await NodeBus.open({ target, nodeId: config.nodeId, publisher: redis, report, answerMs: 5_000 });
  const agents = await AgentDirectory.open({ bus, publisher: redis, workers, ttlMs: config.leaseTtlMs, report });
  const placement = new ClusterPlacement(ownership, bus, store, redis, appends, agents, takeoverWaitMs(config));
  const sessions = await startSessionManager({ ...core, store: appends, reportError: report, lessons: indexLessons(store.corrections), cluster: { placement, fanout, listRelay: bus } });
  return { sessions, store };
}
