import { applyEvents, chainSteps, createSessionState, toSnapshot, type ServerMessage, type SessionInfo, type SessionSnapshot, type SessionSnapshotData } from '@interthought/protocol';
import { describe, expect, it } from 'vitest';
import { clusterPerFile, expectContiguous, type LogEntry, type RecordingClient } from '../support/cluster.js';
import { expectCompleteStream } from '../support/session-stream.js';

const cluster = clusterPerFile();

/** Paced so viewers on other nodes join while the run streams (about 60 tokens, ~1.5 s). */
const TASK = { task: 'What is 17 * 23?', options: { tokenDelayMs: 25 } };

/** Every event frame the client got of the session is the log's frame of that seq, byte for byte. */
function expectFramesFromLog(client: RecordingClient, sessionId: string, log: readonly LogEntry[]): void {
  const byLog = new Map(log.map((entry) => [entry.seq, entry.frame]));
  for (const { raw, event } of client.eventFrames(sessionId)) expect(raw).toBe(byLog.get(event.seq));
}

/** The client's view of the session: its snapshot (if it subscribed with one) with every later event folded in. */
function foldedView(client: RecordingClient, info: SessionInfo): SessionSnapshotData {
  const { sessionId } = info;
  const snapshot = client.frames.find((frame): frame is SessionSnapshot => frame.type === 'session.snapshot' && frame.session.sessionId === sessionId);
  const state = createSessionState(snapshot ?? { ...info, status: 'running', revision: 0 });
  return toSnapshot(applyEvents(state, client.events(sessionId)));
}

function indexOf(client: RecordingClient, predicate: (frame: ServerMessage) => boolean): number {
  return client.frames.findIndex(predicate);
}

describe('Watching a session from every node', () => {
  it('gives every viewer on every node the same events, seq 1…n without gaps, byte for byte as logged', async () => {
    const creator = await cluster.connect('a');
    const fromStartOnB = await cluster.connect('b');
    const fromStartOnC = await cluster.connect('c');
    const snapshotOnB = await cluster.connect('b');
    const snapshotOnC = await cluster.connect('c');

    const sessionId = await creator.createSession(TASK.task, { options: TASK.options });
    const fromStart = [fromStartOnB, fromStartOnC].map((client) => client.request({ type: 'session.subscribe', sessionId, afterSeq: 0 }));
    expect((await Promise.all(fromStart)).map(({ answer }) => answer.type)).toEqual(['session.subscribed', 'session.subscribed']);
    // The snapshot viewers join mid-stream.
    await creator.waitForSeq(sessionId, 10);
    const snapshots = [snapshotOnB, snapshotOnC].map((client) => client.request({ type: 'session.subscribe', sessionId }));
    for (const { answer } of await Promise.all(snapshots)) expect(answer.type).toBe('session.snapshot');

    const everyone = [creator, fromStartOnB, fromStartOnC, snapshotOnB, snapshotOnC];
    await creator.untilFinished(sessionId, 20_000);
    const log = await cluster.log(sessionId);
    const lastSeq = log.length;
    await Promise.all(everyone.map((client) => client.waitForSeq(sessionId, lastSeq)));
    expectContiguous(log.map((entry) => entry.seq));

    // Those from the start: every seq, 1…n, and a clean completed run.
    for (const client of [creator, fromStartOnB, fromStartOnC]) {
      expectCompleteStream(sessionId, client.events(sessionId));
      expect(client.cursor(sessionId)).toBe(lastSeq);
    }
    // Those from a snapshot: exactly the seqs after it.
    for (const client of [snapshotOnB, snapshotOnC]) {
      const snapshot = client.frames.find((frame): frame is SessionSnapshot => frame.type === 'session.snapshot')!;
      expect(snapshot.seq).toBeGreaterThanOrEqual(10);
      expectContiguous(client.seqs(sessionId), snapshot.seq);
      expect(client.cursor(sessionId)).toBe(lastSeq);
    }
    // The same text everywhere: the stored frame, sent as it was stored, whichever node sent it.
    for (const client of everyone) expectFramesFromLog(client, sessionId, log);
    expect(fromStartOnB.eventFrames(sessionId).map((frame) => frame.raw)).toEqual(log.map((entry) => entry.frame));
    expect(fromStartOnC.eventFrames(sessionId).map((frame) => frame.raw)).toEqual(log.map((entry) => entry.frame));
    expect(creator.eventFrames(sessionId).map((frame) => frame.raw)).toEqual(log.map((entry) => entry.frame));
    // The same session everywhere: each client's fold, and each node's snapshot over REST.
    const stored = await cluster.node('a').getJson<SessionSnapshotData>(`/api/sessions/${sessionId}`);
    for (const client of everyone) expect(foldedView(client, stored.session)).toEqual(stored);
    for (const id of ['b', 'c']) expect(await cluster.node(id).getJson(`/api/sessions/${sessionId}`)).toEqual(stored);
    for (const client of everyone) expect(client.frames.filter((frame) => frame.type === 'error')).toEqual([]);
  });

  it('replays exactly the events after a cursor on any node once the run finished', async () => {
    const creator = await cluster.connect('a');
    const sessionId = await creator.createSession(TASK.task, { options: { tokenDelayMs: 0 } });
    await creator.untilFinished(sessionId);
    const log = await cluster.log(sessionId);
    for (const id of ['a', 'b', 'c']) {
      const late = await cluster.connect(id);
      const { answer } = await late.request({ type: 'session.subscribe', sessionId, afterSeq: 5 });
      expect(answer).toMatchObject({ type: 'session.subscribed', sessionId, afterSeq: 5, lastSeq: log.length });
      await late.waitForSeq(sessionId, log.length);
      expect(late.eventFrames(sessionId).map((frame) => frame.raw)).toEqual(log.slice(5).map((entry) => entry.frame));
    }
  });
});

describe('Correcting a step from a node that does not run the session', () => {
  it('answers correction.accepted on the requester node before the step.corrected it caused; only the requester gets it; the chain regenerates alike everywhere', async () => {
    const creator = await cluster.connect('a');
    const corrector = await cluster.connect('b');
    const otherOnB = await cluster.connect('b');
    const viewerOnC = await cluster.connect('c');
    const sessionId = await creator.createSession(TASK.task, { options: TASK.options });
    for (const client of [corrector, otherOnB, viewerOnC]) await client.request({ type: 'session.subscribe', sessionId, afterSeq: 0 });
    expect(await cluster.leaseHolder(sessionId)).toBe('a');

    // The first step, once complete, is corrected while the run goes on.
    const completed = await corrector.waitForType('step.completed', (frame) => frame.sessionId === sessionId);
    const content = 'I will multiply 17 by 23 with the calculator.';
    const { id: requestId, answer } = await corrector.request({ type: 'step.correct', sessionId, stepId: completed.stepId, content, note: 'from node b' });
    expect(answer).toMatchObject({ type: 'correction.accepted', requestId, sessionId, stepId: completed.stepId, revision: 1 });
    const accepted = answer as Extract<ServerMessage, { type: 'correction.accepted' }>;

    const everyone = [creator, corrector, otherOnB, viewerOnC];
    await Promise.all(everyone.map((client) => client.untilFinished(sessionId, 20_000)));
    const log = await cluster.log(sessionId);
    expectContiguous(log.map((entry) => entry.seq));

    // The answer precedes the event it caused on the requester's connection.
    const correctedAt = indexOf(corrector, (frame) => frame.type === 'step.corrected' && frame.sessionId === sessionId);
    expect(correctedAt).toBeGreaterThan(-1);
    expect(indexOf(corrector, (frame) => frame.type === 'correction.accepted')).toBeLessThan(correctedAt);
    const corrected = corrector.frames[correctedAt] as Extract<ServerMessage, { type: 'step.corrected' }>;
    expect(corrected.step).toMatchObject({ stepId: accepted.newStepId, correctionOf: completed.stepId, content, revision: 1 });
    expect(corrected.step.correction).toMatchObject({ note: 'from node b' });

    // Only the requester got an answer; no event anywhere carries a requestId.
    expect(corrector.frames.filter((frame) => frame.type === 'correction.accepted')).toHaveLength(1);
    for (const client of [creator, otherOnB, viewerOnC]) expect(client.frames.filter((frame) => frame.type === 'correction.accepted')).toEqual([]);
    for (const client of everyone) {
      for (const { raw } of client.eventFrames(sessionId)) expect(raw).not.toContain('"requestId"');
      expect(client.frames.filter((frame) => frame.type === 'error')).toEqual([]);
    }

    // Every viewer got the whole log, byte for byte, and the regenerated chain is the same for all.
    for (const client of everyone) {
      const state = expectCompleteStream(sessionId, client.events(sessionId));
      expect(client.eventFrames(sessionId).map((frame) => frame.raw)).toEqual(log.map((entry) => entry.frame));
      const chain = chainSteps(state);
      expect(chain[0]).toMatchObject({ stepId: accepted.newStepId, content, status: 'corrected' });
      expect(chain.length).toBeGreaterThan(1);
      expect(chain.slice(1).every((step) => step.revision === 1)).toBe(true);
      expect(state.session.revision).toBe(1);
    }
    const snapshots = await Promise.all(['a', 'b', 'c'].map((id) => cluster.node(id).getJson(`/api/sessions/${sessionId}`)));
    for (const snapshot of snapshots) expect(snapshot).toEqual(snapshots[0]);
  });

  it('answers a requester that does not follow the session with correction.accepted alone', async () => {
    const creator = await cluster.connect('a');
    const sessionId = await creator.createSession(TASK.task, { options: { tokenDelayMs: 0 } });
    await creator.untilFinished(sessionId);
    const outsider = await cluster.connect('c');
    const snapshot = (await cluster.node('c').getJson(`/api/sessions/${sessionId}`)) as SessionSnapshotData;
    const first = snapshot.steps.find((step) => step.stepId === snapshot.chain[0])!;
    const { id, answer } = await outsider.request({ type: 'step.correct', sessionId, stepId: first.stepId, content: 'Multiply 17 by 23.' });
    expect(answer).toMatchObject({ type: 'correction.accepted', requestId: id, stepId: first.stepId, revision: 1 });
    // The revived run completes; the outsider, not subscribed, gets none of its events.
    await creator.waitForStatus(sessionId, 'completed', 20_000, snapshot.seq);
    expect(outsider.events(sessionId)).toEqual([]);
    expect(outsider.frames.map((frame) => frame.type)).toEqual(['hello', 'correction.accepted']);
  });
});
