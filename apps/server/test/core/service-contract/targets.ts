import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { startClusterNode, type ClusterNode } from '../../../src/cluster/cluster-node.js';
import { WorkerPool } from '../../../src/agents/remote/index.js';
import { connectRedis, quitRedis } from '../../../src/cluster/redis-connection.js';
import type { EventStore } from '../../../src/core/persistence/event-store.js';
import type { SessionService } from '../../../src/core/session-service.js';
import { startSessionManager, type SessionManagerDeps } from '../../../src/core/session-manager.js';
import { MemoryEventStore } from '../../../src/store/memory-event-store.js';
import { openSqliteEventStore } from '../../../src/store/sqlite-event-store.js';
import { startRedisServer, type RedisServer } from '../../support/redis-server.js';
import type { PostgresServer } from '../../support/postgres-server.js';
import { RecordingPeer } from '../support/recording-peer.js';
import { contractAgents, registryOf } from './contract-agents.js';
import type { ServiceTarget, ServiceTargetFactory } from './service-target.js';

/*
 * Every construction of a session service the contract runs against is here, and only here: when
 * the constructors change, this file changes and the contract does not.
 */

/** Strictly increasing readings shared by every node of a target: two sessions never share a `createdAt`. */
function steadyClock(): () => Date {
  let last = 0;
  return () => {
    last = Math.max(Date.now(), last + 1);
    return new Date(last);
  };
}

/** Failures a service reported and survived, kept for the test to look at. */
function errorLog(): { report: (context: string, error: unknown) => void; take: () => string[] } {
  const errors: string[] = [];
  return {
    report: (context, error) => errors.push(`${context}: ${error instanceof Error ? error.message : String(error)}`),
    take: () => errors.splice(0),
  };
}

/** The core's settings every target shares: tokens unpaced, so runs are quick and ordered by the event loop alone. */
function coreDeps(report: (context: string, error: unknown) => void, now: () => Date) {
  const { agents, tools, gates, calls, files } = contractAgents();
  const deps = (): Omit<SessionManagerDeps, 'store'> => ({ agents: registryOf(agents), tools: tools(), defaultTokenDelayMs: 0, now, reportError: report });
  return { deps, gates, calls, files };
}

/**
 * Opened targets are closed after each test, whatever it did; a failure a service reported and
 * survived, which no test here provokes, fails the test it happened in.
 */
function closingAfterEach(open: () => Promise<ServiceTarget>): ServiceTargetFactory {
  const opened: ServiceTarget[] = [];
  afterEach(async () => {
    const errors: string[] = [];
    for (const target of opened.splice(0)) {
      await target.close();
      errors.push(...target.takeErrors());
    }
    if (errors.length > 0) throw new Error(`The session services reported failures:\n${errors.join('\n')}`);
  });
  return {
    async open() {
      const target = await open();
      opened.push(target);
      return target;
    },
  };
}

/** A store of the single node's own, and how it is let go after the node stopped. */
interface OwnStore {
  store: EventStore;
  close(): Promise<void>;
}

/** A `SessionManager` on a store of its own. */
function singleNode(openStore: () => OwnStore): ServiceTargetFactory {
  return closingAfterEach(async () => {
    const errors = errorLog();
    const { deps, gates, calls, files } = coreDeps(errors.report, steadyClock());
    const own = openStore();
    const manager = await startSessionManager({ ...deps(), store: own.store });
    return {
      services: [manager],
      peer: (id) => new RecordingPeer(id),
      gates,
      calls,
      files,
      takeErrors: errors.take,
      async close() {
        await manager.shutdown();
        await own.close();
      },
    };
  });
}

/** One node on the in-memory store. */
export function memoryNode(): ServiceTargetFactory {
  return singleNode(() => ({ store: new MemoryEventStore(), close: async () => undefined }));
}

/** One node on a SQLite file of its own, in a temp dir removed after the file's tests. */
export function sqliteNode(): ServiceTargetFactory {
  let dir: string | undefined;
  let files = 0;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'it-service-contract-'));
  });
  afterAll(() => {
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });
  return singleNode(() => {
    if (dir === undefined) throw new Error('The temp dir is made before the first test');
    const store = openSqliteEventStore(join(dir, `sessions-${++files}.db`));
    return { store, close: () => store.close() };
  });
}

/** Lease settings of the cluster nodes: no node dies in these tests, so the defaults of a real cluster do. */
const CLUSTER = { leaseTtlMs: 3_000, sweepMs: 1_000 } as const;

/**
 * Two cluster nodes, `a` and `b`, in this process, on one redis-server started for the file and
 * emptied before each test. Each node has its own store connection, channel and bus, as two
 * processes would; only the agents' instances (and their gates) are shared. With `postgres`, the
 * log is in a new schema of that server for each test (Postgres + Redis).
 */
export function twoNodeCluster(options: { postgres?: { readonly current: PostgresServer } } = {}): ServiceTargetFactory {
  let redis: RedisServer | undefined;
  let admin: Redis | undefined;
  beforeAll(async () => {
    redis = await startRedisServer();
    admin = await connectRedis(redis.socket);
  }, 30_000);
  afterAll(async () => {
    if (admin !== undefined) await quitRedis(admin);
    await redis?.stop();
  });
  return closingAfterEach(async () => {
    if (redis === undefined || admin === undefined) throw new Error('The redis-server is started before the first test');
    await admin.flushall();
    const errors = errorLog();
    const { deps, gates, calls, files } = coreDeps(errors.report, steadyClock());
    const nodes: ClusterNode[] = [];
    const database = options.postgres === undefined ? undefined : { url: await options.postgres.current.createSchema(), poolSize: 5 };
    for (const nodeId of ['a', 'b']) {
      const core = deps();
      nodes.push(await startClusterNode({ redisUrl: `unix://${redis.socket}`, nodeId, ...CLUSTER, retainEventsPerSession: undefined, database }, core, new WorkerPool(core.agents)));
    }
    const services: SessionService[] = nodes.map((node) => node.sessions);
    return {
      services,
      peer: (id) => new RecordingPeer(id),
      gates,
      calls,
      files,
      takeErrors: errors.take,
      async close() {
        for (const node of nodes) {
          await node.sessions.shutdown();
          await node.store.close();
        }
      },
    };
  });
}
