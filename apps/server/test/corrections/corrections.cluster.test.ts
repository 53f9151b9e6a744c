import type { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { connectRedis, quitRedis } from '../../src/cluster/redis-connection.js';
import { CORRECTIONS_BUILT_KEY, CORRECTIONS_KEY, sessionCorrectionsKey } from '../../src/cluster/redis-keys.js';
import { NodeProcess, nodeEnv } from '../support/cluster.js';
import { startRedisServer, type RedisServer } from '../support/redis-server.js';
import { TestClient } from '../support/ws-client.js';
import { correct, exportLines, finished, listCorrections, reject, waiting } from './support.js';

/** Node processes start (and one restarts) on a machine that may be busy. */
const CLUSTER_TEST_MS = 90_000;

/*
 * The index in cluster mode (PROTOCOL.md §26): kept in Redis beside each session's keys, so every
 * node lists and exports what any node's sessions were corrected with; emptied with a deletion
 * on any node; built at start for a Redis from before it.
 */
describe('the corrections index in cluster mode (real redis-server, node processes)', () => {
  // Two nodes, started one after the other (in parallel they may outlast a start-up's patience on a busy machine).
  let redis: RedisServer;
  let admin: Redis;
  const nodes = new Map<string, NodeProcess>();
  const clients: TestClient[] = [];
  const startNode = async (id: string): Promise<NodeProcess> => {
    const node = await NodeProcess.start(id, nodeEnv(redis.socket, id, { INTERTHOUGHT_TOKEN_DELAY_MS: '0' }));
    nodes.set(id, node);
    return node;
  };
  beforeAll(async () => {
    redis = await startRedisServer();
    admin = await connectRedis(redis.socket);
    await startNode('a');
    await startNode('b');
  }, CLUSTER_TEST_MS);
  afterEach(() => {
    for (const client of clients.splice(0)) client.terminate();
  });
  afterAll(async () => {
    await Promise.all([...nodes.values()].map((node) => node.crash()));
    await quitRedis(admin);
    await redis.stop();
  }, 30_000);
  const node = (id: string): NodeProcess => nodes.get(id)!;
  const connect = async (id: string): Promise<TestClient> => {
    const client = await TestClient.connect(node(id).wsUrl);
    clients.push(client);
    await client.waitForType('hello');
    return client;
  };

  it('a correction made through one node is listed and exported by another; a deletion removes it everywhere', async () => {
    const client = await connect('a');
    const { sessionId, chain } = await finished(client, 'What is 13 * 3?');
    const newStepId = await correct(client, sessionId, chain[0]!.stepId, 'Thirteen threes.', 'shorter');
    const refused = await waiting(client, 'What is 40% of 80?');
    await reject(client, refused.sessionId, refused.stepId, 'no calculator');

    for (const id of ['a', 'b']) {
      const http = { baseUrl: node(id).baseUrl };
      const mine = (await listCorrections(http)).corrections.filter((record) => [sessionId, refused.sessionId].includes(record.sessionId));
      expect(mine.map((record) => [record.sessionId, record.correction]), id).toEqual([
        [refused.sessionId, 'rejected'],
        [sessionId, 'edited'],
      ]);
      expect(mine[1]).toMatchObject({ stepId: chain[0]!.stepId, correctedStepId: newStepId, note: 'shorter', kind: 'thought' });
      const { lines } = await exportLines(http, 'preference', { session: sessionId });
      expect(lines.map((line) => line.chosen[0]!.content), id).toEqual(['Thirteen threes.']);
    }
    expect(await admin.hlen(sessionCorrectionsKey(sessionId))).toBe(1);

    const deleted = await fetch(`${node('b').baseUrl}/api/sessions/${sessionId}`, { method: 'DELETE' });
    expect(deleted.status).toBe(204);
    for (const id of ['a', 'b']) {
      expect((await listCorrections({ baseUrl: node(id).baseUrl }, { session: sessionId })).corrections, id).toEqual([]);
    }
    expect(await admin.exists(sessionCorrectionsKey(sessionId))).toBe(0);
  }, CLUSTER_TEST_MS);

  it('a node starting on a Redis without the index builds it from the logs', async () => {
    const client = await connect('a');
    const { sessionId, chain } = await finished(client, 'What is 14 * 2?');
    const newStepId = await correct(client, sessionId, chain[0]!.stepId, 'Fourteen twice.');
    const before = (await listCorrections({ baseUrl: node('a').baseUrl })).corrections;

    // As a Redis from before the index: no index keys at all.
    const sessionHashes = await admin.keys('it:{*}:corrections');
    await admin.del(CORRECTIONS_KEY, CORRECTIONS_BUILT_KEY, ...sessionHashes);
    expect((await listCorrections({ baseUrl: node('b').baseUrl })).corrections).toEqual([]);

    await node('b').crash();
    const restarted = await startNode('b');
    expect(await admin.exists(CORRECTIONS_BUILT_KEY)).toBe(1);
    const rebuilt = (await listCorrections({ baseUrl: restarted.baseUrl })).corrections;
    expect(rebuilt).toEqual(before);
    expect(rebuilt.map((record) => record.correctedStepId)).toContain(newStepId);
  }, CLUSTER_TEST_MS);
});
