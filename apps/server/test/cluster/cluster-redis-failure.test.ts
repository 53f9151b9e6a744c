import type { SessionEvent } from '@interthought/protocol';
import { describe, expect, it } from 'vitest';
import { clusterPerFile, eventually, expectContiguous, NODE_IDS, requesterCopy, type RecordingClient } from '../support/cluster.js';
import { expectCompleteStream } from '../support/session-stream.js';

/**
 * Redis with AOF fsynced before every reply. Leases of 5 s: an outage of Redis shorter than that
 * costs no node its sessions, so the run goes on where it was instead of being taken over.
 */
const cluster = clusterPerFile({ durable: true, env: { INTERTHOUGHT_LEASE_TTL_MS: '5000' } });

/** Eight steps of a hundred deltas at 250 a second: about three seconds of stream. */
const FINITE = 'firehose rate=250 count=800 step=100 size=16';
/** Long enough to still run after several rounds of killed connections: about six seconds. */
const LONGER = 'firehose rate=250 count=1500 step=100 size=16';

/** The creator on a, a viewer from seq 0 on b and on c, and one from a snapshot on c. */
async function watchedSession(task: string): Promise<{ sessionId: string; fromStart: RecordingClient[]; fromSnapshot: RecordingClient }> {
  const creator = await cluster.connect('a');
  const onB = await cluster.connect('b');
  const onC = await cluster.connect('c');
  const fromSnapshot = await cluster.connect('c');
  const sessionId = await creator.createSession(task, { agent: 'firehose' });
  for (const client of [onB, onC]) await client.request({ type: 'session.subscribe', sessionId, afterSeq: 0 });
  await creator.waitForSeq(sessionId, 20);
  await fromSnapshot.request({ type: 'session.subscribe', sessionId });
  return { sessionId, fromStart: [creator, onB, onC], fromSnapshot };
}

function snapshotSeq(client: RecordingClient): number {
  const snapshot = client.frames.find((frame) => frame.type === 'session.snapshot');
  if (snapshot?.type !== 'session.snapshot') throw new Error('The client got no snapshot');
  return snapshot.seq;
}

/** The nodes' connections to Redis whose name starts with `prefix` (`CLIENT LIST`; only those subscribed to something with `pubsub`). */
async function connectionsNamed(prefix: string, type: 'normal' | 'pubsub' | 'any' = 'any'): Promise<Array<{ id: string; name: string }>> {
  const list = String(await cluster.admin.call('CLIENT', 'LIST', ...(type === 'any' ? [] : ['TYPE', type])));
  return list
    .split('\n')
    .map((line) => ({ id: /\bid=(\d+)/.exec(line)?.[1] ?? '', name: /\bname=(\S*)/.exec(line)?.[1] ?? '' }))
    .filter((connection) => connection.name.startsWith(prefix));
}

async function expectNodesReady(): Promise<void> {
  for (const id of NODE_IDS) {
    await eventually(async () => ((await cluster.node(id).health()).cluster?.redis === 'ready' ? true : undefined), `node ${id} to be connected to Redis again`);
  }
}

describe('Redis killed with kill -9 mid-stream and restarted on its socket (AOF, appendfsync always)', () => {
  it('keeps every seq any client saw, and every viewer on every node goes on without a gap or a repeat to the end', async () => {
    const { sessionId, fromStart, fromSnapshot } = await watchedSession(FINITE);
    const everyone = [...fromStart, fromSnapshot];
    await Promise.all(everyone.map((client) => client.waitForSeq(sessionId, 100)));

    await cluster.redis.kill('SIGKILL');
    // Everything any client got before Redis died, by seq.
    const seen = new Map<number, string>();
    for (const client of everyone) for (const { raw, event } of client.eventFrames(sessionId)) seen.set(event.seq, raw);
    await cluster.redis.restart();
    await expectNodesReady();

    await Promise.all(everyone.map((client) => client.untilFinished(sessionId, 30_000)));
    const log = await cluster.log(sessionId);
    expectContiguous(log.map((entry) => entry.seq));
    for (const [seq, raw] of seen) expect(log[seq - 1]?.frame, `seq ${seq}`).toBe(raw);
    const frames = log.map((entry) => entry.frame);
    for (const client of fromStart) expect(client.eventFrames(sessionId).map((frame) => frame.raw)).toEqual(frames);
    expect(fromSnapshot.eventFrames(sessionId).map((frame) => frame.raw)).toEqual(frames.slice(snapshotSeq(fromSnapshot)));
    expectCompleteStream(sessionId, fromStart[1]!.events(sessionId));
    // Nothing of it was taken over: the owner kept its lease through the outage.
    expect(log.filter((entry) => entry.frame.includes('"status":"interrupted"'))).toEqual([]);
  });
});

describe('The pub/sub connections killed mid-stream (CLIENT KILL TYPE pubsub)', () => {
  it('refills every viewer from the log (no gap, no repeat), and commands are routed again once the bus is back', async () => {
    const { sessionId, fromStart, fromSnapshot } = await watchedSession(LONGER);
    const everyone = [...fromStart, fromSnapshot];
    const creator = fromStart[0]!;
    await creator.waitForSeq(sessionId, 60);
    const before = await connectionsNamed('interthought-');
    const channels = before.filter((connection) => connection.name === 'interthought-channel');
    const buses = before.filter((connection) => connection.name.startsWith('interthought-bus-'));
    expect(channels).toHaveLength(3);
    expect(buses).toHaveLength(3);

    // Several times while the run streams: each time every node misses what is published until it is back.
    for (let round = 0; round < 4; round++) {
      const killed = await cluster.admin.call('CLIENT', 'KILL', 'TYPE', 'pubsub');
      expect(killed).toBe(6);
      const streamedTo = creator.cursor(sessionId);
      // Back means connected and subscribed again: the channels (resubscribed by SessionChannel) and the buses (by ioredis).
      await eventually(async () => ((await connectionsNamed('interthought-', 'pubsub')).length === 6 ? true : undefined), 'the channels and buses to subscribe again');
      await creator.waitForSeq(sessionId, streamedTo + 20);
    }
    // Only the store connections are the ones from before.
    const kept = (await connectionsNamed('interthought-')).filter((connection) => before.some((old) => old.id === connection.id));
    expect(kept.map((connection) => connection.name)).toEqual(['interthought-store', 'interthought-store', 'interthought-store']);

    // A command from a node that does not run the session goes through the resubscribed bus.
    const requester = fromStart[2]!;
    const pause = await requester.request({ type: 'session.pause', sessionId });
    expect(pause.answer).toMatchObject({ type: 'session.status', status: 'paused', requestId: pause.id });
    const resume = await requester.request({ type: 'session.resume', sessionId });
    expect(resume.answer).toMatchObject({ type: 'session.status', status: 'running', requestId: resume.id });

    await Promise.all(everyone.map((client) => client.untilFinished(sessionId, 30_000)));
    const log = await cluster.log(sessionId);
    expectContiguous(log.map((entry) => entry.seq));
    const frames = log.map((entry) => entry.frame);
    const answered = new Map([
      [(pause.answer as SessionEvent).seq, pause.id],
      [(resume.answer as SessionEvent).seq, resume.id],
    ]);
    expect(creator.eventFrames(sessionId).map((frame) => frame.raw)).toEqual(frames);
    expect(fromStart[1]!.eventFrames(sessionId).map((frame) => frame.raw)).toEqual(frames);
    expect(requester.eventFrames(sessionId).map((frame) => frame.raw)).toEqual(
      frames.map((frame, index) => (answered.has(index + 1) ? requesterCopy(frame, answered.get(index + 1)!) : frame)),
    );
    expect(fromSnapshot.eventFrames(sessionId).map((frame) => frame.raw)).toEqual(frames.slice(snapshotSeq(fromSnapshot)));
    expectCompleteStream(sessionId, creator.events(sessionId));
  });
});
