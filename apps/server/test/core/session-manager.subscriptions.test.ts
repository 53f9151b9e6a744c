import { applyEvents, createSessionState, type SessionSnapshot } from '@interthought/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { MemoryEventStore } from '../../src/store/memory-event-store.js';
import { TestAgent } from './support/test-agents.js';
import { createHarness, storedEvents, turns, until, untilStatus, type Harness, type HarnessOptions } from './support/harness.js';
import { RecordingPeer } from './support/recording-peer.js';
import { RecordingStore } from '../support/recording-store.js';
import { refusal } from './support/refusal.js';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.manager.shutdown();
  harness = undefined;
});

function setup(options: HarnessOptions = {}): Harness {
  harness = createHarness(options);
  return harness;
}

function seqs(peer: RecordingPeer, sessionId: string): number[] {
  return peer.events(sessionId).map((event) => event.seq);
}

function range(from: number, to: number): number[] {
  return Array.from({ length: to - from + 1 }, (_, index) => from + index);
}

describe('subscribe without a cursor', () => {
  it('sends a snapshot with the request id, then every later event exactly once', async () => {
    const h = setup();
    const { sessionId } = await h.manager.create({ task: 'x' });
    await until(async () => (await h.manager.snapshot(sessionId))!.seq > 6, 'a few events');
    const peer = new RecordingPeer();
    await h.manager.subscribe(sessionId, { peer, requestId: 'sub-1' });
    const snapshot = peer.messages[0] as unknown as SessionSnapshot;
    expect(snapshot).toMatchObject({ type: 'session.snapshot', requestId: 'sub-1', session: { sessionId, task: 'x' } });
    await untilStatus(h.manager, sessionId, 'completed');
    const last = (await h.manager.snapshot(sessionId))!.seq;
    expect(seqs(peer, sessionId)).toEqual(range(snapshot.seq + 1, last));
    const rebuilt = applyEvents(createSessionState(snapshot), peer.events(sessionId));
    const current = (await h.manager.snapshot(sessionId))!;
    expect({ steps: [...rebuilt.steps.values()], chain: rebuilt.chain, seq: rebuilt.seq, status: rebuilt.session.status }).toEqual({
      steps: current.steps,
      chain: current.chain,
      seq: current.seq,
      status: current.session.status,
    });
  });

  it('refuses an unknown session with SESSION_NOT_FOUND', async () => {
    const h = setup();
    await refusal(() => h.manager.subscribe('nope', { peer: new RecordingPeer() }), 'SESSION_NOT_FOUND');
  });
});

describe('subscribe with afterSeq', () => {
  it('sends session.subscribed, exactly the missing events, then live ones', async () => {
    const h = setup();
    const { sessionId } = await h.manager.create({ task: 'x' });
    await until(async () => (await h.manager.snapshot(sessionId))!.seq > 10, 'a few events');
    const peer = new RecordingPeer();
    await h.manager.subscribe(sessionId, { peer, requestId: 'r' }, 4);
    const subscribed = peer.messages[0]!;
    expect(subscribed).toEqual({ type: 'session.subscribed', requestId: 'r', sessionId, afterSeq: 4, lastSeq: expect.any(Number) });
    expect(seqs(peer, sessionId)).toEqual(range(5, subscribed.lastSeq as number));
    await untilStatus(h.manager, sessionId, 'completed');
    const last = (await h.manager.snapshot(sessionId))!.seq;
    expect(seqs(peer, sessionId)).toEqual(range(5, last));
    expect(peer.events(sessionId)).toEqual((await storedEvents(h.store, sessionId)).slice(4));
  });

  it('replays nothing for a cursor at the last seq, and everything from 0', async () => {
    const h = setup();
    const { sessionId } = await h.manager.create({ task: 'x' });
    await untilStatus(h.manager, sessionId, 'completed');
    const last = (await h.manager.snapshot(sessionId))!.seq;
    const upToDate = new RecordingPeer();
    await h.manager.subscribe(sessionId, { peer: upToDate }, last);
    expect(upToDate.messages).toEqual([{ type: 'session.subscribed', sessionId, afterSeq: last, lastSeq: last }]);
    const fresh = new RecordingPeer();
    await h.manager.subscribe(sessionId, { peer: fresh }, 0);
    expect(seqs(fresh, sessionId)).toEqual(range(1, last));
  });

  it.each([
    ['negative', -1],
    ['not an integer', 1.5],
    ['beyond the last seq', 10_000],
    ['not a number', Number.NaN],
  ])('refuses a cursor that is %s with BAD_CURSOR stating the valid range', async (_why, afterSeq) => {
    const h = setup();
    const { sessionId } = await h.manager.create({ task: 'x' });
    await untilStatus(h.manager, sessionId, 'completed');
    const last = (await h.manager.snapshot(sessionId))!.seq;
    const peer = new RecordingPeer();
    const error = await refusal(() => h.manager.subscribe(sessionId, { peer }, afterSeq), 'BAD_CURSOR');
    expect(error.message).toContain(`from 0 to ${last}`);
    expect(peer.frames).toEqual([]);
    await h.manager.correct({ sessionId, stepId: (await h.manager.snapshot(sessionId))!.chain[0]!, content: 'again' });
    await turns(5);
    expect(peer.frames).toEqual([]);
  });

  it('sends a snapshot instead when the events after the cursor are no longer kept', async () => {
    const h = setup({ store: new MemoryEventStore({ maxEventsPerSession: 12 }) });
    const { sessionId } = await h.manager.create({ task: 'x' });
    await untilStatus(h.manager, sessionId, 'completed');
    const firstKept = (await h.store.firstKeptSeq(sessionId))!;
    expect(firstKept).toBeGreaterThan(2);
    const behind = new RecordingPeer();
    await h.manager.subscribe(sessionId, { peer: behind, requestId: 'old' }, firstKept - 2);
    expect(behind.messages).toHaveLength(1);
    expect(behind.messages[0]).toMatchObject({ type: 'session.snapshot', requestId: 'old', seq: (await h.manager.snapshot(sessionId))!.seq });
    const near = new RecordingPeer();
    await h.manager.subscribe(sessionId, { peer: near }, firstKept - 1);
    expect(near.messages[0]!.type).toBe('session.subscribed');
    expect(seqs(near, sessionId)).toEqual(range(firstKept, (await h.manager.snapshot(sessionId))!.seq));
  });

  it('meets the live stream without gap or duplicate when subscribing mid-stream', async () => {
    const h = setup();
    const { sessionId } = await h.manager.create({ task: 'x' });
    const peers: RecordingPeer[] = [];
    for (let round = 0; round < 6; round++) {
      await turns(2);
      const peer = new RecordingPeer(`p${round}`);
      await h.manager.subscribe(sessionId, { peer }, round);
      peers.push(peer);
    }
    await untilStatus(h.manager, sessionId, 'completed');
    const last = (await h.manager.snapshot(sessionId))!.seq;
    peers.forEach((peer, round) => expect(seqs(peer, sessionId)).toEqual(range(round + 1, last)));
  });
});

describe('many peers, many sessions', () => {
  it('sends two peers subscribed alike identical frame sequences', async () => {
    const h = setup();
    const { sessionId } = await h.manager.create({ task: 'x' });
    const a = new RecordingPeer('a');
    const b = new RecordingPeer('b');
    await h.manager.subscribe(sessionId, { peer: a });
    await h.manager.subscribe(sessionId, { peer: b });
    await untilStatus(h.manager, sessionId, 'completed');
    await h.manager.correct({ sessionId, stepId: (await h.manager.snapshot(sessionId))!.chain[1]!, content: 'Plan B.' });
    await untilStatus(h.manager, sessionId, 'completed');
    expect(a.frames.length).toBeGreaterThan(20);
    expect(a.frames).toEqual(b.frames);
  });

  it('lets one peer watch several sessions and detach from all of them at once', async () => {
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const slow = new TestAgent('slow', async (context) => {
      await gate;
      const writer = context.sink.start('final_answer');
      await writer.write('done');
      writer.end();
    });
    const h = setup({ agents: [slow] });
    const peer = new RecordingPeer();
    const first = (await h.manager.create({ task: 'one', agent: 'slow' })).sessionId;
    const second = (await h.manager.create({ task: 'two', agent: 'slow' })).sessionId;
    await h.manager.subscribe(first, { peer });
    await h.manager.subscribe(second, { peer });
    expect(h.manager.subscriptionCount(peer)).toBe(2);
    h.manager.detach(peer);
    expect(h.manager.subscriptionCount(peer)).toBe(0);
    peer.clear();
    release();
    await untilStatus(h.manager, first, 'completed');
    await untilStatus(h.manager, second, 'completed');
    expect(peer.frames).toEqual([]);
  });

  it('keeps a session running with no subscribers', async () => {
    const h = setup();
    const peer = new RecordingPeer();
    const { sessionId } = await h.manager.create({ task: 'x' });
    await h.manager.subscribe(sessionId, { peer });
    await h.manager.unsubscribe(sessionId, peer);
    await untilStatus(h.manager, sessionId, 'completed');
    expect(peer.events(sessionId)).toEqual([]);
    expect((await h.manager.snapshot(sessionId))!.steps).toHaveLength(5);
  });

  it('unsubscribes idempotently, and refuses an unknown session with SESSION_NOT_FOUND', async () => {
    const h = setup();
    const peer = new RecordingPeer();
    const { sessionId } = await h.manager.create({ task: 'x' });
    await h.manager.unsubscribe(sessionId, peer);
    await h.manager.subscribe(sessionId, { peer });
    await h.manager.unsubscribe(sessionId, peer);
    await h.manager.unsubscribe(sessionId, peer);
    await refusal(() => h.manager.unsubscribe('nope', peer), 'SESSION_NOT_FOUND');
    await untilStatus(h.manager, sessionId, 'completed');
    expect(peer.events(sessionId)).toEqual([]);
  });
});

describe('subscribe and the event log', () => {
  it('refuses with INTERNAL, sending nothing, while the latest events cannot be written', async () => {
    const store = new RecordingStore();
    const h = setup({ store });
    const { sessionId } = await h.manager.create({ task: 'x' });
    store.failWrites = true;
    const failures: string[] = [];
    await until(() => failures.push(...h.takeErrors()) > 0, 'a write of the agent\'s events to fail');
    expect(failures[0]).toContain('appendBatch failed');
    const peer = new RecordingPeer();
    // Refused at the next failed retry, instead of held for as long as the store is down.
    await refusal(() => h.manager.subscribe(sessionId, { peer }), 'INTERNAL');
    expect(peer.frames).toEqual([]);
    store.failWrites = false;
    await h.manager.subscribe(sessionId, { peer });
    const [snapshot] = peer.messages;
    expect(snapshot!.type).toBe('session.snapshot');
    // What it covers was written before it was sent.
    expect(store.written.has(`${sessionId}#${String(snapshot!.seq)}`)).toBe(true);
    // Failures of the retries that ran before the store came back.
    h.takeErrors();
  });

  it('never sends an event before it is written, one batch per tick', async () => {
    const store = new RecordingStore();
    const h = setup({ store });
    const { sessionId } = await h.manager.create({ task: 'x' });
    await h.manager.subscribe(sessionId, { peer: store.peer('a') });
    await h.manager.subscribe(sessionId, { peer: store.peer('b') }, 0);
    await untilStatus(h.manager, sessionId, 'completed');
    const seqBefore = (await h.manager.snapshot(sessionId))!.seq;
    await h.manager.correct({ sessionId, stepId: (await h.manager.snapshot(sessionId))!.chain[0]!, content: 'Again.' });
    await untilStatus(h.manager, sessionId, 'completed');
    expect(store.sentBeforeWritten()).toEqual([]);
    // The correction's turn (corrected, invalidated, running) is one batch, written once.
    const correctionKeys = [1, 2, 3].map((offset) => `${sessionId}#${seqBefore + offset}`);
    const batches = store.journal.flatMap((entry) => (entry.op === 'write' ? [entry.seqs] : []));
    expect(batches.filter((seqs) => correctionKeys.some((key) => seqs.includes(key)))).toEqual([correctionKeys]);
    const batchSizes = store.journal.flatMap((entry) => (entry.op === 'write' ? [entry.seqs.length] : []));
    expect(batchSizes.reduce((sum, size) => sum + size, 0)).toBe((await h.manager.snapshot(sessionId))!.seq);
    expect(Math.max(...batchSizes)).toBeGreaterThan(1);
  });
});
