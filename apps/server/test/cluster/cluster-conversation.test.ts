import type { SessionEvent } from '@interthought/protocol';
import { applyEvents, createSessionState } from '@interthought/protocol';
import { describe, expect, it } from 'vitest';
import { clusterPerFile, expectContiguous, type RecordingClient } from '../support/cluster.js';

// Conversations on three nodes: a message or a fork sent to any node is carried out where the
// session can run, and every viewer on every node sees the same log.
const cluster = clusterPerFile({ env: { INTERTHOUGHT_TOKEN_DELAY_MS: '0' } });

async function finished(client: RecordingClient, task: string): Promise<string> {
  const sessionId = await client.createSession(task);
  await client.waitForStatus(sessionId, 'completed');
  return sessionId;
}

async function logOf(sessionId: string): Promise<SessionEvent[]> {
  const log = await cluster.log(sessionId);
  expectContiguous(log.map((entry) => entry.seq));
  return log.map((entry) => JSON.parse(entry.frame) as SessionEvent);
}

describe('conversations in a cluster', () => {
  it('a follow-up sent to another node starts the next turn once; every viewer sees the same log', async () => {
    const creator = await cluster.connect('a');
    const sessionId = await finished(creator, 'What is 12 * 7?');
    const onC = await cluster.connect('c');
    await onC.request({ type: 'session.subscribe', sessionId, afterSeq: 0 });
    const before = creator.cursor(sessionId);
    const sender = await cluster.connect('b');
    const sent = await sender.request({ type: 'session.message', sessionId, text: 'Add 10 to that.' });
    expect(sent.answer).toMatchObject({ type: 'message.accepted', sessionId, queued: false, requestId: sent.id });
    const completedSeq = (await creator.waitForStatus(sessionId, 'completed', 15_000, before)).seq;
    await creator.waitForSeq(sessionId, completedSeq);
    const log = await logOf(sessionId);
    const state = applyEvents(createSessionState(), log);
    const kinds = state.chain.map((id) => state.steps.get(id)!.kind);
    expect(kinds.filter((kind) => kind === 'user_message')).toHaveLength(1);
    expect(kinds.at(-1)).toBe('final_answer');
    expect(state.steps.get(state.chain.at(-1)!)!.content).toContain('94');
    await onC.waitForSeq(sessionId, log.at(-1)!.seq);
    const frames = (await cluster.log(sessionId)).map((entry) => entry.frame);
    expect(onC.eventFrames(sessionId).map((frame) => frame.raw)).toEqual(frames);
  });

  it('a fork asked on one node is served on every node, and continues with a message sent to a third', async () => {
    const creator = await cluster.connect('a');
    const sessionId = await finished(creator, 'What is 15% of 240?');
    const source = applyEvents(createSessionState(), await logOf(sessionId));
    const forker = await cluster.connect('c');
    const forked = await forker.request({ type: 'session.fork', sessionId, stepId: source.chain[1]! });
    expect(forked.answer).toMatchObject({ type: 'session.created', session: { status: 'idle', forkedFrom: { sessionId, stepId: source.chain[1] } } });
    const forkId = (forked.answer as { session: { sessionId: string } }).session.sessionId;
    await forker.waitForType('steps.copied', (frame) => frame.sessionId === forkId);
    expect(await cluster.leaseHolder(forkId)).toBeUndefined();

    const sender = await cluster.connect('b');
    await sender.request({ type: 'session.subscribe', sessionId: forkId, afterSeq: 0 });
    const sent = await sender.request({ type: 'session.message', sessionId: forkId, text: 'Go on.' });
    expect(sent.answer).toMatchObject({ type: 'message.accepted', queued: false });
    await sender.waitForStatus(forkId, 'completed');
    const fork = applyEvents(createSessionState(), await logOf(forkId));
    expect(fork.chain.slice(0, 2).map((id) => fork.steps.get(id)!.content)).toEqual(source.chain.slice(0, 2).map((id) => source.steps.get(id)!.content));
    expect(fork.steps.get(fork.chain[2]!)).toMatchObject({ kind: 'user_message', content: 'Go on.' });
    // The source is untouched.
    expect(await logOf(sessionId)).toHaveLength(source.seq);
  });
  it('a replay (fork with run) asked on one node runs at once, and a viewer on another node sees it to its end', async () => {
    const creator = await cluster.connect('a');
    const sessionId = await finished(creator, 'What is 9 * 9?');
    const source = applyEvents(createSessionState(), await logOf(sessionId));
    const answer = source.chain.at(-1)!;
    const forker = await cluster.connect('c');
    const forked = await forker.request({ type: 'session.fork', sessionId, stepId: answer, run: true });
    expect(forked.answer).toMatchObject({ type: 'session.created', session: { status: 'running', forkedFrom: { sessionId, stepId: answer } } });
    const forkId = (forked.answer as { session: { sessionId: string } }).session.sessionId;
    const viewer = await cluster.connect('b');
    await viewer.request({ type: 'session.subscribe', sessionId: forkId, afterSeq: 0 });
    await forker.waitForStatus(forkId, 'completed');
    const log = await logOf(forkId);
    const fork = applyEvents(createSessionState(), log);
    // The answer is what a replay redoes (PROTOCOL.md §26.5): copied up to the step before it, then answered again.
    expect(fork.chain.flatMap((id) => fork.steps.get(id)!.copiedFrom?.stepId ?? [])).toEqual(source.chain.slice(0, -1));
    expect(fork.steps.get(fork.chain.at(-1)!)).toMatchObject({ kind: 'final_answer', content: expect.stringContaining('81') });
    await viewer.waitForSeq(forkId, log.at(-1)!.seq);
  });
});
