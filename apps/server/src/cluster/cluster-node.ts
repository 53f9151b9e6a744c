import type { SessionInfo } from '@interthought/protocol';
import type { RedisOptions } from 'ioredis';
import type { ClusterConfig } from '../config/cluster-config.js';
import type { SessionManager, SessionManagerDeps } from '../core/sessions/session-manager.js';
import { startSessionManager } from '../core/sessions/session-manager.js';
import { timeoutRejection } from '../core/commands/approvals.js';
import { SessionError } from '../core/session-error.js';
import { SessionListWatchers } from '../core/fanout/session-list-watchers.js';
import { ClusterSessions } from './cluster-sessions.js';
import { NodeBus } from './node-bus.js';
import { OwnedAppends } from './owned-appends.js';
import { Ownership } from './ownership.js';
import type { RedisTarget } from './redis-connection.js';
import { connectRedisEventStore, type RedisEventStore } from './redis-event-store.js';
import { SessionChannel } from './session-channel.js';
import { SessionFeeds } from './session-feeds.js';
import { SessionLeases } from './session-lease.js';

/** A running cluster node: the session service the transport uses, and the store it closes last. */
export interface ClusterNode {
  sessions: ClusterSessions;
  store: RedisEventStore;
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
 * Every node keeps the clock of every session waiting for a decision with a timeout (not only the
 * node that ran it to the wait, which lets it go and may die): whichever fires first rejects the
 * call where the session can run, and the others find it decided.
 */
function followDeadlines(local: SessionManager, frame: string): void {
  const change = JSON.parse(frame) as { type?: string; session?: SessionInfo };
  if (change.type === 'sessions.changed' && change.session !== undefined) void local.followDeadline(change.session);
}

/**
 * Join the cluster at `config.redisUrl`: connect the store, the session channel and the node bus,
 * start the session core (which runs only the sessions this node owns), and start renewing leases
 * and sweeping for sessions whose owner died. Fails at once when Redis is unreachable.
 */
export async function startClusterNode(
  config: ClusterConfig & { retainEventsPerSession: number | undefined },
  core: Omit<SessionManagerDeps, 'store' | 'recoverInterrupted'>,
): Promise<ClusterNode> {
  const target = redisTarget(config.redisUrl);
  const report = core.reportError ?? ((context: string, error: unknown) => console.error(`[cluster ${config.nodeId}] ${context}:`, error));
  const store = await connectRedisEventStore(target, config.retainEventsPerSession === undefined ? {} : { retainEventsPerSession: config.retainEventsPerSession });
  const leases = new SessionLeases(store.redis, store.scripts, { nodeId: config.nodeId, ttlMs: config.leaseTtlMs });
  // The service is made last; ownership reports to it from its timers only, which start after.
  let sessions: ClusterSessions | undefined;
  const ownership = new Ownership(
    leases,
    store,
    {
      lost: (sessionId) => sessions?.lost(sessionId),
      orphaned: (sessionId) => void sessions?.takeOver(sessionId).catch((error: unknown) => report(`taking over session ${sessionId} failed`, error)),
      report,
    },
    config.sweepMs,
  );
  const appends = new OwnedAppends(store, ownership);
  const local = await startSessionManager({
    ...core,
    store: appends,
    recoverInterrupted: false,
    reportError: report,
    // Rejected where the session can run, like a user's rejection (the waiting session has no owner).
    onApprovalTimeout: (sessionId, stepId) =>
      void sessions?.reject(timeoutRejection(sessionId, stepId)).catch((error: unknown) => {
        if (!(error instanceof SessionError) || error.code === 'INTERNAL') report(`rejecting the timed-out approval of session ${sessionId} failed`, error);
      }),
  });
  let feeds: SessionFeeds | undefined;
  const channel = await SessionChannel.open(target, {
    onBatch: (sessionId, frames, firstSeq) => feeds?.onBatch(sessionId, frames, firstSeq),
    onResubscribed: () => feeds?.refillAll(),
    onError: (error) => report('the session channel failed', error),
  });
  feeds = new SessionFeeds(store, channel, report);
  store.onWritten((sessionId, frames, firstSeq) => feeds?.onBatch(sessionId, frames, firstSeq));
  const listWatchers = new SessionListWatchers(report);
  const onList = (frame: string): void => {
    listWatchers.relay(frame);
    followDeadlines(local, frame);
  };
  const bus = await NodeBus.open({ target, nodeId: config.nodeId, publisher: store.redis, onList, report, answerMs: 5_000 });
  const service = new ClusterSessions({ local, store, appends, ownership, feeds, channel, bus, listWatchers, takeoverWaitMs: takeoverWaitMs(config), report });
  sessions = service;
  // The core tells this node's list changes to one watcher, which tells every node.
  await local.watchList({ peer: { id: `node:${config.nodeId}`, send: () => undefined, sendLive: (frame) => service.onLocalListChange(frame) } }, 1);
  ownership.start();
  return { sessions: service, store };
}
