import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SessionSnapshotData, Step } from '@interthought/protocol';
import { FakeOpenAIServer } from '../../agents/openai/support/fake-openai-server.js';
import { answerTurn, content } from '../../agents/openai/support/wire.js';
import { clusterPerFile } from '../../support/cluster.js';

/*
 * Lessons on a cluster (PROTOCOL.md §26.4): the correction made on node a is in the Redis index,
 * and a session created on node b begins with it. One core: the same hook on every node.
 */

const file = join(mkdtempSync(join(tmpdir(), 'interthought-lessons-cluster-')), 'agents.json');
let fake: FakeOpenAIServer | undefined;

// Before the cluster's own beforeAll: the nodes read the agents file as they start.
beforeAll(async () => {
  fake = await FakeOpenAIServer.start();
  fake.answerBy((body: { messages: Array<{ content: string }> }) => answerTurn(...content(body.messages[0]!.content.includes('A person corrected it to') ? 'Short.' : 'A long, long answer.')));
  writeFileSync(file, JSON.stringify({ agents: { tutor: { type: 'openai', baseURL: fake.baseURL, model: 'tutor-model', tools: [], lessons: true, retry: { baseDelayMs: 5 } } } }));
});
afterAll(async () => {
  await fake?.close();
});

const cluster = clusterPerFile({ env: { INTERTHOUGHT_AGENTS_CONFIG: file, OPENAI_BASE_URL: '', OPENAI_API_KEY: '' } });

function chainOf(snapshot: SessionSnapshotData): Step[] {
  return snapshot.chain.map((id) => snapshot.steps.find((step) => step.stepId === id)!);
}

describe('lessons on a cluster', () => {
  it('a correction made on one node is a lesson for a session on another', async () => {
    const onA = await cluster.connect('a');
    const first = await onA.createSession('Summarise the meeting notes of Monday', { agent: 'tutor' });
    await onA.untilFinished(first, 20_000);
    const [answer] = chainOf(await cluster.node('a').getJson<SessionSnapshotData>(`/api/sessions/${first}`));
    const corrected = await onA.request({ type: 'step.correct', sessionId: first, stepId: answer!.stepId, content: 'Short.', note: 'keep it short' });
    expect(corrected.answer).toMatchObject({ type: 'correction.accepted' });

    const onB = await cluster.connect('b');
    const second = await onB.createSession('Summarise the meeting notes of Tuesday', { agent: 'tutor' });
    await onB.untilFinished(second, 20_000);
    const chain = chainOf(await cluster.node('b').getJson<SessionSnapshotData>(`/api/sessions/${second}`));
    expect(chain.map((step) => step.kind)).toEqual(['thought', 'final_answer']);
    expect(chain[0]!.lessons).toEqual([{ sessionId: first, stepId: answer!.stepId, correctedStepId: (corrected.answer as { newStepId: string }).newStepId }]);
    expect(chain[0]!.content).toContain('keep it short');
    expect(chain[1]!.content).toBe('Short.');
  });
});
