import type { SessionEvent } from '@interthought/protocol';
import { describe, expect, it } from 'vitest';
import { clusterPerFile, eventually, expectContiguous, type RecordingClient } from '../support/cluster.js';

// Approvals on three nodes: a decision made on any node is carried out where the session can run,
// once; every viewer on every node sees the same decision at the same seq.
const cluster = clusterPerFile({ env: { INTERTHOUGHT_TOKEN_DELAY_MS: '0' } });

/** A demo session created on `creator`'s node whose calculator call waits; resolves with its ids. */
async function waitingSession(creator: RecordingClient, options: Record<string, unknown> = { approve: 'all' }) {
  const sessionId = await creator.createSession('What is 12 * 7?', { options });
  const requested = await creator.waitForType('approval.requested', (frame) => frame.sessionId === sessionId);
  await creator.waitForStatus(sessionId, 'waiting');
  return { sessionId, stepId: requested.stepId };
}

describe('approvals in a cluster', () => {
  it('a decision sent to another node runs the call once; every viewer sees it', async () => {
    const creator = await cluster.connect('a');
    const onC = await cluster.connect('c');
    const { sessionId, stepId } = await waitingSession(creator);
    await onC.request({ type: 'session.subscribe', sessionId, afterSeq: 0 });

    const decider = await cluster.connect('b');
    const approve = await decider.request({ type: 'tool.approve', sessionId, stepId });
    expect(approve.answer).toMatchObject({ type: 'approval.resolved', sessionId, stepId, decision: 'approved', requestId: approve.id });
    const done = await creator.waitForStatus(sessionId, 'completed');
    await onC.waitForSeq(sessionId, done.seq);

    const log = await cluster.log(sessionId);
    expectContiguous(log.map((entry) => entry.seq));
    const events = log.map((entry) => JSON.parse(entry.frame) as SessionEvent);
    expect(events.filter((event) => event.type === 'approval.resolved')).toHaveLength(1);
    // The calculator ran once: one observation, after the decision.
    expect(events.filter((event) => event.type === 'step.started' && event.step.kind === 'observation')).toHaveLength(1);
    for (const viewer of [creator, onC]) expect(viewer.eventFrames(sessionId).map((frame) => frame.raw)).toEqual(log.map((entry) => entry.frame));
  });

  it('of two decisions on two nodes at once exactly one wins, the other is told it was already decided', async () => {
    const creator = await cluster.connect('a');
    const { sessionId, stepId } = await waitingSession(creator);
    const [onB, onC] = [await cluster.connect('b'), await cluster.connect('c')];
    const [approve, reject] = await Promise.all([
      onB.request({ type: 'tool.approve', sessionId, stepId }),
      onC.request({ type: 'tool.reject', sessionId, stepId, reason: 'no' }),
    ]);
    const answers = [approve.answer, reject.answer];
    expect(answers.filter((answer) => answer.type === 'approval.resolved')).toHaveLength(1);
    expect(answers.filter((answer) => answer.type === 'error')).toEqual([expect.objectContaining({ code: 'APPROVAL_NOT_PENDING' })]);
    await creator.waitForStatus(sessionId, 'completed');
    const events = (await cluster.log(sessionId)).map((entry) => JSON.parse(entry.frame) as SessionEvent);
    expect(events.filter((event) => event.type === 'approval.resolved')).toHaveLength(1);
  });

  it('a timeout rejects the call on whichever node the session can run, after its owner let it go', async () => {
    const creator = await cluster.connect('a');
    const { sessionId, stepId } = await waitingSession(creator, { approve: 'all', approvalTimeoutMs: 1_000 });
    const resolved = (await creator.waitForType('approval.resolved', (frame) => frame.sessionId === sessionId)) as SessionEvent;
    expect(resolved).toMatchObject({ stepId, decision: 'rejected', by: 'server', reason: 'timed out' });
    await creator.waitForStatus(sessionId, 'completed');
    await eventually(async () => ((await cluster.leaseHolder(sessionId)) === undefined ? true : undefined), 'the lease to be released');
  });

  it('a timeout still rejects the call when the node that ran the session to its wait died', async () => {
    // Nodes b and c started before the session existed: only a list change tells them of its wait.
    const creator = await cluster.connect('a');
    const { sessionId, stepId } = await waitingSession(creator, { approve: 'all', approvalTimeoutMs: 3_000 });
    const onB = await cluster.connect('b');
    const { answer } = await onB.request({ type: 'session.subscribe', sessionId, afterSeq: 0 });
    expect(answer.type).toBe('session.subscribed');
    await cluster.node('a').crash();

    const resolved = (await onB.waitForType('approval.resolved', (frame) => frame.sessionId === sessionId)) as SessionEvent;
    expect(resolved).toMatchObject({ stepId, decision: 'rejected', by: 'server', reason: 'timed out' });
    await onB.waitForStatus(sessionId, 'completed');
    // Decided once, whichever of b and c fired first.
    const log = (await cluster.log(sessionId)).map((entry) => JSON.parse(entry.frame) as SessionEvent);
    expect(log.filter((event) => event.type === 'approval.resolved')).toHaveLength(1);
    expectContiguous(log.map((event) => event.seq));
  });
});
