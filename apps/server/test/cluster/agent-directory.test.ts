import { describe, expect, it } from 'vitest';
import { AgentRegistry } from '@interthought/agent';
import { WorkerPool } from '../../src/agents/remote/index.js';
import type { WorkerConnection } from '../../src/agents/remote/index.js';
import { AgentDirectory, WORKER_NODES_KEY, workersKey } from '../../src/cluster/agent-directory.js';
import { NodeBus } from '../../src/cluster/node-bus.js';
import { eventually } from '../support/cluster.js';
import { redisPerFile } from './redis-fixtures.js';

const redis = redisPerFile();
const TTL_MS = 600;

/** A node's directory over its own pool and bus; `pool.register` takes a stand-in worker. */
async function node(nodeId: string): Promise<{ pool: WorkerPool; registry: AgentRegistry; directory: AgentDirectory; bus: NodeBus }> {
  const registry = new AgentRegistry('demo');
  const pool = new WorkerPool(registry);
  const publisher = await redis.connect();
  const report = (context: string, error: unknown): void => {
    throw new Error(`${context}: ${String(error)}`);
  };
  const bus = await NodeBus.open({ target: redis.server.socket, nodeId, publisher, report, answerMs: 1_000 });
  const directory = await AgentDirectory.open({ bus, publisher, workers: pool, ttlMs: TTL_MS, report });
  return { pool, registry, directory, bus };
}

function standInWorker(): WorkerConnection {
  return { served: new Map() } as unknown as WorkerConnection;
}

describe('AgentDirectory', () => {
  it("lists another node's remote agents as available, names that node for their runs, and forgets them when its workers leave", async () => {
    const a = await node('a');
    const b = await node('b');
    const worker = standInWorker();
    b.pool.register(worker, [{ name: 'py', description: 'a Python agent' }]);
    await eventually(async () => (a.registry.get('py')?.availability().available === true ? true : undefined), 'py on a');
    expect(a.registry.list().find((agent) => agent.name === 'py')).toMatchObject({ description: 'a Python agent', available: true });
    expect(a.directory.nodeFor('py')).toBe('b');
    expect(a.directory.runsOn('b', 'py')).toBe(true);
    // A node with a worker runs it itself; an in-process agent runs anywhere.
    expect(b.directory.nodeFor('py')).toBeUndefined();
    expect(a.directory.nodeFor('demo')).toBeUndefined();
    b.pool.remove(worker);
    await eventually(async () => (a.registry.get('py')?.availability().available === false ? true : undefined), 'py gone from a');
    expect(a.directory.nodeFor('py')).toBeUndefined();
    await Promise.all([a.directory.stop(), b.directory.stop(), a.bus.close(), b.bus.close()]);
  });

  it('tells a node that starts later what the others serve, and forgets a node that stops refreshing within the TTL', async () => {
    // Node x published its workers once and died: its key is there (until its TTL), its refreshes stop.
    const agents = JSON.stringify([{ name: 'py', description: 'a Python agent', workers: 1 }]);
    await redis.admin.multi().set(workersKey('x'), agents, 'PX', TTL_MS).sadd(WORKER_NODES_KEY, 'x', 'gone').exec();
    const late = await node('c');
    expect(late.directory.nodeFor('py')).toBe('x');
    expect(late.registry.get('py')?.availability()).toEqual({ available: true });
    // A node whose key had expired is dropped from the set.
    expect(await redis.admin.sismember(WORKER_NODES_KEY, 'gone')).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, TTL_MS + 50));
    expect(late.directory.nodeFor('py')).toBeUndefined();
    expect(late.registry.get('py')?.availability()).toEqual({ available: false, reason: 'no worker connected', reasons: { zh: '没有连接的工作进程' } });
    await late.directory.stop();
    await late.bus.close();
  });
});
