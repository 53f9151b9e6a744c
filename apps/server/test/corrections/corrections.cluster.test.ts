import { describe, expect, it } from 'vitest';
import { CORRECTIONS_BUILT_KEY, CORRECTIONS_KEY, sessionCorrectionsKey } from '../../src/cluster/redis-keys.js';
import { clusterPerFile } from '../support/cluster.js';
import { correct, exportLines, finished, listCorrections, reject, waiting } from './support.js';

/** Node processes start (and one restarts) on a machine that may be busy. */
const CLUSTER_TEST_MS = 90_000;

/*
 * The index in cluster mode (PROTOCOL.md §26): kept in Redis beside each session's keys, so every
 * node lists and exports what any node's sessions were corrected with; emptied with a deletion
 * on any node; built at start for a Redis from before it.
 */
describe('the corrections index in cluster mode (real redis-server, node processes)', () => {
  const cluster = clusterPerFile();

  it('a correction made through one node is listed and exported by another; a deletion removes it everywhere', async () => {
    const client = await cluster.connect('a');
    const { sessionId, chain } = await finished(client, 'What is 13 * 3?');
    const newStepId = await correct(client, sessionId, chain[0]!.stepId, 'Thirteen threes.', 'shorter');
    const refused = await waiting(client, 'What is 40% of 80?');
    await reject(client, refused.sessionId, refused.stepId, 'no calculator');

    for (const id of ['a', 'b']) {
      const http = { baseUrl: cluster.node(id).baseUrl };
      const mine = (await listCorrections(http)).corrections.filter((record) => [sessionId, refused.sessionId].includes(record.sessionId));
      expect(mine.map((record) => [record.sessionId, record.correction]), id).toEqual([
        [refused.sessionId, 'rejected'],
        [sessionId, 'edited'],
      ]);
      expect(mine[1]).toMatchObject({ stepId: chain[0]!.stepId, correctedStepId: newStepId, note: 'shorter', kind: 'thought' });
      const { lines } = await exportLines(http, 'preference', { session: sessionId });
      expect(lines.map((line) => line.chosen[0]!.content), id).toEqual(['Thirteen threes.']);
    }
    expect(await cluster.admin.hlen(sessionCorrectionsKey(sessionId))).toBe(1);

    const deleted = await fetch(`${cluster.node('b').baseUrl}/api/sessions/${sessionId}`, { method: 'DELETE' });
    expect(deleted.status).toBe(204);
    for (const id of ['a', 'b']) {
      expect((await listCorrections({ baseUrl: cluster.node(id).baseUrl }, { session: sessionId })).corrections, id).toEqual([]);
    }
    expect(await cluster.admin.exists(sessionCorrectionsKey(sessionId))).toBe(0);
  }, CLUSTER_TEST_MS);

  it('a node starting on a Redis without the index builds it from the logs', async () => {
    const client = await cluster.connect('a');
    const { sessionId, chain } = await finished(client, 'What is 14 * 2?');
    const newStepId = await correct(client, sessionId, chain[0]!.stepId, 'Fourteen twice.');
    const before = (await listCorrections({ baseUrl: cluster.node('a').baseUrl })).corrections;

    // As a Redis from before the index: no index keys at all.
    const sessionHashes = await cluster.admin.keys('it:{*}:corrections');
    await cluster.admin.del(CORRECTIONS_KEY, CORRECTIONS_BUILT_KEY, ...sessionHashes);
    expect((await listCorrections({ baseUrl: cluster.node('b').baseUrl })).corrections).toEqual([]);

    const restarted = await cluster.restart('c');
    expect(await cluster.admin.exists(CORRECTIONS_BUILT_KEY)).toBe(1);
    const rebuilt = (await listCorrections({ baseUrl: restarted.baseUrl })).corrections;
    expect(rebuilt).toEqual(before);
    expect(rebuilt.map((record) => record.correctedStepId)).toContain(newStepId);
  }, CLUSTER_TEST_MS);
});
