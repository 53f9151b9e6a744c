import type { SessionEvent } from '@interthought/protocol';
import { describe, expect, it } from 'vitest';
import { Outbox, type OutboxTarget } from '../../src/core/persistence/outbox.js';
import type { Peer } from '../../src/core/fanout/peer.js';
import { turns, until } from './support/harness.js';
import { RecordingStore } from '../support/recording-store.js';

function target(...peers: Peer[]): OutboxTarget & { subscribers: Map<Peer, number> } {
  return { subscribers: new Map(peers.map((peer) => [peer, 0])) };
}

function statusEvent(sessionId: string, seq: number): SessionEvent {
  return { type: 'session.status', sessionId, seq, at: '2025-01-01T00:00:00.000Z', status: 'running' };
}

function setup() {
  const store = new RecordingStore();
  void store.createSession({ info: { sessionId: 's', task: 't', agent: 'a', status: 'running', revision: 0, createdAt: 'x' }, options: {}, lastSeq: 0 });
  const errors: string[] = [];
  const outbox = new Outbox({ store, reportError: (context) => errors.push(context), retryDelayMs: 1, maxRetryDelayMs: 1 });
  return { store, outbox, errors };
}

describe('Outbox: group commit', () => {
  it('writes everything queued in one tick as one batch', async () => {
    const { store, outbox } = setup();
    const peer = store.peer('p');
    const to = target(peer);
    for (let seq = 1; seq <= 5; seq++) outbox.enqueue({ target: to, event: statusEvent('s', seq) });
    expect(store.batches).toBe(0);
    await turns(1);
    expect(store.batches).toBe(1);
    expect(store.journal[0]).toEqual({ op: 'write', seqs: ['s#1', 's#2', 's#3', 's#4', 's#5'] });
    expect(peer.frames).toHaveLength(5);
  });

  it('never sends an event before the batch holding it is written', async () => {
    const { store, outbox } = setup();
    const to = target(store.peer('p1'), store.peer('p2'));
    for (let seq = 1; seq <= 3; seq++) outbox.enqueue({ target: to, event: statusEvent('s', seq) });
    await turns(1);
    outbox.enqueue({ target: to, event: statusEvent('s', 4) });
    await turns(1);
    expect(store.batches).toBe(2);
    expect(store.sentOnlyAfterWritten()).toBe(true);
    expect(store.journal.map((entry) => entry.op)).toEqual(['write', 'send', 'send', 'send', 'send', 'send', 'send', 'write', 'send', 'send']);
  });

  it('sends the very same string to every subscriber', async () => {
    const { store, outbox } = setup();
    const a = store.peer('a');
    const b = store.peer('b');
    outbox.enqueue({ target: target(a, b), event: statusEvent('s', 1) });
    await outbox.flush();
    expect(a.frames).toEqual(b.frames);
    expect(JSON.parse(a.frames[0]!)).toEqual(statusEvent('s', 1));
  });

  it('keeps events queued and unsent while the store fails, then writes and sends them', async () => {
    const { store, outbox, errors } = setup();
    const peer = store.peer('p');
    store.failWrites = true;
    outbox.enqueue({ target: target(peer), event: statusEvent('s', 1) });
    expect(await outbox.flush()).toBe(false);
    expect(peer.frames).toEqual([]);
    expect(outbox.pending).toBe(1);
    expect(errors[0]).toMatch(/appendBatch failed/);
    store.failWrites = false;
    await until(() => peer.frames.length === 1, 'the retry to write and send');
    expect(outbox.pending).toBe(0);
    expect(store.sentOnlyAfterWritten()).toBe(true);
  });

  it('sends the requester its copy with requestId instead of the plain one', async () => {
    const { store, outbox } = setup();
    const requester = store.peer('r');
    const other = store.peer('o');
    outbox.enqueue({ target: target(requester, other), event: statusEvent('s', 1), reply: { peer: requester, requestId: 'q1' } });
    await outbox.flush();
    expect(requester.frames.map((frame) => JSON.parse(frame))).toEqual([{ ...statusEvent('s', 1), requestId: 'q1' }]);
    expect(other.frames.map((frame) => JSON.parse(frame))).toEqual([statusEvent('s', 1)]);
  });

  it('also sends the copy to a requester who is not subscribed', async () => {
    const { store, outbox } = setup();
    const requester = store.peer('r');
    const other = store.peer('o');
    outbox.enqueue({ target: target(other), event: statusEvent('s', 1), reply: { peer: requester, requestId: 'q1' } });
    await outbox.flush();
    expect(requester.frames.map((frame) => JSON.parse(frame))).toEqual([{ ...statusEvent('s', 1), requestId: 'q1' }]);
    expect(other.frames).toHaveLength(1);
  });

  it('skips events a subscriber already got from its snapshot or replay', async () => {
    const { store, outbox } = setup();
    const late = store.peer('late');
    const to = { subscribers: new Map<Peer, number>([[late, 2]]) };
    for (let seq = 1; seq <= 3; seq++) outbox.enqueue({ target: to, event: statusEvent('s', seq) });
    await outbox.flush();
    expect(late.frames.map((frame) => (JSON.parse(frame) as { seq: number }).seq)).toEqual([3]);
  });

  it('delivers to the other peers when one throws from send', async () => {
    const { store, outbox, errors } = setup();
    const broken: Peer = {
      id: 'broken',
      send: () => {
        throw new Error('socket gone');
      },
      sendLive: () => undefined,
    };
    const fine = store.peer('fine');
    outbox.enqueue({ target: target(broken, fine), event: statusEvent('s', 1) });
    await outbox.flush();
    expect(fine.frames).toHaveLength(1);
    expect(errors).toEqual(['peer broken threw from send']);
  });

  it('keeps the order of events when a peer triggers a flush from inside send', async () => {
    const { store, outbox } = setup();
    const seen: number[] = [];
    let reacted = false;
    const to = target();
    const reacting: Peer = {
      id: 'reacting',
      sendLive: () => undefined,
      send: (frame) => {
        seen.push((JSON.parse(frame.text) as { seq: number }).seq);
        if (reacted) return;
        reacted = true;
        outbox.enqueue({ target: to, event: statusEvent('s', 3) });
        void outbox.flush();
      },
    };
    to.subscribers.set(reacting, 0);
    outbox.enqueue({ target: to, event: statusEvent('s', 1) });
    outbox.enqueue({ target: to, event: statusEvent('s', 2) });
    await outbox.flush();
    await outbox.flush();
    expect(seen).toEqual([1, 2, 3]);
  });
});
