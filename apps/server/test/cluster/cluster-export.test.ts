import type { SessionInfo, SessionSnapshotData } from '@interthought/protocol';
import { describe, expect, it } from 'vitest';
import { clusterPerFile, eventually } from '../support/cluster.js';

const cluster = clusterPerFile();

function linesOf(text: string): string[] {
  expect(text.endsWith('\n')).toBe(true);
  return text.slice(0, -1).split('\n');
}

// Export and import (PROTOCOL.md §20.5) on three nodes sharing Redis.
describe('Export and import on a cluster', () => {
  it('exports from any node what the owner wrote, imports on another, lets its lease go, and every node lists, serves and runs it', async () => {
    const creator = await cluster.connect('a');
    const listOnB = await cluster.connect('b');
    await listOnB.request({ type: 'sessions.watch' });
    const sessionId = await creator.createSession('What is 17 * 23?');
    await creator.untilFinished(sessionId, 20_000);

    const exported = await (await fetch(`${cluster.node('b').baseUrl}/api/sessions/${sessionId}/export`)).text();
    const lines = linesOf(exported);
    expect(lines.slice(1)).toEqual((await cluster.log(sessionId)).map((entry) => entry.frame));

    const response = await fetch(`${cluster.node('c').baseUrl}/api/sessions/import`, { method: 'POST', headers: { 'content-type': 'application/x-ndjson' }, body: exported });
    expect(response.status).toBe(201);
    const { session } = (await response.json()) as { session: SessionInfo };
    // Nothing runs it, so no node holds it: the next command claims it wherever it lands.
    await eventually(async () => ((await cluster.leaseHolder(session.sessionId)) === undefined ? true : undefined), 'the imported session to be let go');
    await listOnB.waitForType('sessions.changed', (frame) => frame.session.sessionId === session.sessionId);
    const original = await cluster.node('a').getJson<SessionSnapshotData>(`/api/sessions/${sessionId}`);
    expect(await cluster.node('b').getJson<SessionSnapshotData>(`/api/sessions/${session.sessionId}`)).toEqual({ ...original, session: { ...original.session, sessionId: session.sessionId } });
    const page = await cluster.node('a').getJson<{ sessions: SessionInfo[] }>('/api/sessions?limit=100');
    expect(page.sessions.map((info) => info.sessionId)).toContain(session.sessionId);

    const { answer } = await creator.request({ type: 'session.subscribe', sessionId: session.sessionId });
    expect(answer).toMatchObject({ type: 'session.snapshot', seq: original.seq });
    const corrected = await creator.request({ type: 'step.correct', sessionId: session.sessionId, stepId: original.chain.at(-1)!, content: '17 × 23 = 391.' });
    expect(corrected.answer).toMatchObject({ type: 'correction.accepted', sessionId: session.sessionId });
    await creator.waitForStatus(session.sessionId, 'completed', 20_000, original.seq);
  });
});
