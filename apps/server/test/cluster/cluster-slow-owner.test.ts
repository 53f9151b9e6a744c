import type { ServerMessage, SessionEvent } from '@interthought/protocol';
import { describe, expect, it } from 'vitest';
import { clusterPerFile, requesterCopy } from '../support/cluster.js';

/**
 * Leases of 12 s: an owner that stalls for a few seconds keeps its sessions (a renewal is at most
 * 4 s old when it stalls, so its lease holds for 8 s more), but answers a routed command later
 * than the requester waits for it (5 s).
 */
const cluster = clusterPerFile({ env: { INTERTHOUGHT_LEASE_TTL_MS: '12000' } });

const ENDLESS = 'firehose rate=100 count=1000000 size=16';
/** Longer than a node waits for a routed command's answer, shorter than the lease outlives a stall. */
const STALL_MS = 6_500;

describe('A routed command whose owner answers late (it stalled past the requester node\'s wait, not past its lease)', () => {
  it('is carried out once and answered once, with the requester\'s copy', async () => {
    const creator = await cluster.connect('a');
    const requester = await cluster.connect('b');
    const sessionId = await creator.createSession(ENDLESS, { agent: 'firehose' });
    await requester.request({ type: 'session.subscribe', sessionId, afterSeq: 0 });
    await requester.waitForSeq(sessionId, 5);

    const owner = cluster.node('a');
    owner.signal('SIGSTOP');
    let pause: Promise<{ id: string; answer: ServerMessage }>;
    try {
      pause = requester.request({ type: 'session.pause', sessionId }, 30_000);
      // Real time on purpose: the stalled owner is another process (SIGSTOP) whose lease lives in a real redis-server.
      await new Promise((resolve) => setTimeout(resolve, STALL_MS));
    } finally {
      owner.signal('SIGCONT');
    }
    const { id, answer } = await pause;
    expect(answer).toMatchObject({ type: 'session.status', status: 'paused', requestId: id });
    const pausedSeq = (answer as SessionEvent).seq;

    // Nobody took the session over, and it was paused once.
    expect(await cluster.leaseHolder(sessionId)).toBe('a');
    await creator.waitForSeq(sessionId, pausedSeq);
    const log = await cluster.log(sessionId);
    const statuses = log.map((entry) => JSON.parse(entry.frame) as SessionEvent).filter((event) => event.type === 'session.status');
    expect(statuses.map((event) => event.status)).toEqual(['running', 'paused']);
    // One answer: no refusal of a second pause after it.
    const resume = await requester.request({ type: 'session.resume', sessionId });
    expect(resume.answer).toMatchObject({ type: 'session.status', status: 'running', requestId: resume.id });
    expect(requester.frames.filter((frame) => 'requestId' in frame && frame.requestId === id)).toEqual([answer]);
    expect(requester.frames.filter((frame) => frame.type === 'error')).toEqual([]);
    expect(requester.eventFrames(sessionId).find((frame) => frame.event.seq === pausedSeq)?.raw).toBe(requesterCopy(log[pausedSeq - 1]!.frame, id));
  });
});
