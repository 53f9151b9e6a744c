import type { SessionEvent } from '@interthought/protocol';
import { describe, expect, it } from 'vitest';
import { AgentRegistry } from '@interthought/agent';
import { createFirehoseAgent } from '../../src/agents/firehose/firehose-agent.js';
import { BACKLOG_MARK_DELIVERIES, Outbox, type OutboxTarget } from '../../src/core/persistence/outbox.js';
import type { Peer } from '../../src/core/fanout/peer.js';
import { SessionManager } from '../../src/core/session-manager.js';
import { ToolRegistry } from '../../src/tools/tool-registry.js';
import { turns, until } from './support/harness.js';
import { RecordingStore } from '../support/recording-store.js';

function statusEvent(seq: number): SessionEvent {
  return { type: 'session.status', sessionId: 's', seq, at: '2025-01-01T00:00:00.000Z', status: 'running' };
}

function setup(subscribers: number) {
  const store = new RecordingStore();
  void store.createSession({ info: { sessionId: 's', task: 't', agent: 'a', status: 'running', revision: 0, createdAt: 'x' }, options: {}, lastSeq: 0 });
  const peers = Array.from({ length: subscribers }, (_, index) => store.peer(`p${index}`));
  const target: OutboxTarget = { subscribers: new Map<Peer, number>(peers.map((peer) => [peer, 0])) };
  const outbox = new Outbox({ store, reportError: () => undefined, retryDelayMs: 1, maxRetryDelayMs: 1 });
  return { store, outbox, target, peers };
}

describe('Outbox: the backlog producers watch', () => {
  it('is backlogged once the queued events cost the mark in deliveries, and not before', async () => {
    const subscribers = 8;
    const { outbox, target } = setup(subscribers);
    const eventsToMark = BACKLOG_MARK_DELIVERIES / subscribers;
    for (let seq = 1; seq < eventsToMark; seq++) outbox.enqueue({ target, event: statusEvent(seq) });
    expect(outbox.backlogged).toBe(false);
    outbox.enqueue({ target, event: statusEvent(eventsToMark) });
    expect(outbox.backlogged).toBe(true);
  });

  it('resolves drained() once what was queued is written and sent to every subscriber', async () => {
    const { store, outbox, target, peers } = setup(4);
    for (let seq = 1; seq <= 300; seq++) outbox.enqueue({ target, event: statusEvent(seq) });
    expect(outbox.backlogged).toBe(true);
    let sentWhenDrained = -1;
    const drained = outbox.drained().then(() => (sentWhenDrained = peers.reduce((sum, peer) => sum + peer.frames.length, 0)));
    await drained;
    expect(sentWhenDrained).toBe(4 * 300);
    expect(store.sentOnlyAfterWritten()).toBe(true);
    expect(outbox.backlogged).toBe(false);
  });

  it('keeps a producer waiting while the store fails, and lets it go once the retry wrote the batch', async () => {
    const { store, outbox, target } = setup(4);
    store.failWrites = true;
    for (let seq = 1; seq <= 300; seq++) outbox.enqueue({ target, event: statusEvent(seq) });
    let released = false;
    void outbox.drained().then(() => (released = true));
    await turns(3);
    expect(released).toBe(false);
    expect(outbox.backlogged).toBe(true);
    store.failWrites = false;
    await until(() => released, 'the retry to write the batch');
    expect(store.batches).toBe(1);
  });

  it('releases a waiting producer when it closes, so nothing waits forever', async () => {
    const { store, outbox, target } = setup(4);
    store.failWrites = true;
    for (let seq = 1; seq <= 300; seq++) outbox.enqueue({ target, event: statusEvent(seq) });
    const drained = outbox.drained();
    outbox.close();
    await expect(drained).resolves.toBeUndefined();
  });
});

describe('Backlog: a producer that writes many deltas without awaiting each', () => {
  it('holds a firehose tick at the mark: no batch costs more deliveries than the mark plus one event', async () => {
    const store = new RecordingStore();
    const manager = new SessionManager({ store, agents: new AgentRegistry('firehose').register(createFirehoseAgent()), tools: new ToolRegistry() });
    const subscribers = 25;
    const peers = Array.from({ length: subscribers }, (_, index) => store.peer(`p${index}`));
    const deltas = 5_000;
    const { sessionId } = await manager.create({ task: `firehose rate=max count=${deltas} size=32 delay=20` });
    for (const peer of peers) await manager.subscribe(sessionId, { peer }, 0);
    await until(async () => (await manager.snapshot(sessionId))?.session.status === 'completed', 'the firehose to finish', 1_000_000);

    const batchSizes = store.journal.flatMap((entry) => (entry.op === 'write' ? [entry.seqs.length] : []));
    const largest = Math.max(...batchSizes);
    expect(largest * subscribers).toBeLessThanOrEqual(BACKLOG_MARK_DELIVERIES + subscribers);
    // Every delta still reached every subscriber, in order.
    for (const peer of peers) {
      const events = peer.frames.map((frame) => JSON.parse(frame) as SessionEvent).filter((event) => typeof event.seq === 'number');
      const seqs = events.map((event) => event.seq);
      expect(seqs).toEqual(seqs.map((_, index) => index + 1));
      expect(events.filter((event) => event.type === 'step.delta').length).toBe(deltas + 1);
    }
    await manager.shutdown();
  });
});
