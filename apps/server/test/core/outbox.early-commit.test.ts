import type { SessionEvent } from '@interthought/protocol';
import { describe, expect, it } from 'vitest';
import { EARLY_COMMIT_EVENTS, Outbox, type OutboxTarget } from '../../src/core/outbox.js';
import type { Peer } from '../../src/core/session-service.js';
import { turns } from './support/harness.js';
import { RecordingStore } from './support/recording-store.js';

function deltaEvent(sessionId: string, seq: number): SessionEvent {
  return { type: 'step.delta', sessionId, seq, at: '2025-01-01T00:00:00.000Z', stepId: 'st', text: `token ${seq}` };
}

function setup() {
  const store = new RecordingStore();
  for (const sessionId of ['a', 'b']) {
    store.createSession({ info: { sessionId, task: 't', agent: 'x', status: 'running', revision: 0, createdAt: 'x' }, options: {}, lastSeq: 0 });
  }
  const outbox = new Outbox({ store, reportError: () => undefined });
  const peer = store.peer('p');
  const target: OutboxTarget = { subscribers: new Map<Peer, number>([[peer, 0]]) };
  return { store, outbox, peer, target };
}

/** Queue `count` events of `sessionId` from seq `first`, all in the caller's synchronous run. */
function burst(outbox: Outbox, target: OutboxTarget, sessionId: string, first: number, count: number): void {
  for (let seq = first; seq < first + count; seq++) outbox.enqueue({ target, event: deltaEvent(sessionId, seq) });
}

describe('Outbox: early commit of a big burst', () => {
  it('commits and sends a burst of EARLY_COMMIT_EVENTS as soon as the code queuing it returns, before the turn ends', async () => {
    const { store, outbox, peer, target } = setup();
    burst(outbox, target, 'a', 1, EARLY_COMMIT_EVENTS + 10);
    expect(store.batches).toBe(0);
    await Promise.resolve();
    expect(store.batches).toBe(1);
    expect(peer.frames).toHaveLength(EARLY_COMMIT_EVENTS + 10);
    expect(store.sentOnlyAfterWritten()).toBe(true);
  });

  it('keeps a smaller batch for the end of the turn, so sessions writing in one turn share it', async () => {
    const { store, outbox, target } = setup();
    burst(outbox, target, 'a', 1, 3);
    await Promise.resolve();
    burst(outbox, target, 'b', 1, 3);
    await Promise.resolve();
    expect(store.batches).toBe(0);
    await turns(1);
    expect(store.batches).toBe(1);
    expect(store.journal[0]).toEqual({ op: 'write', seqs: ['a#1', 'a#2', 'a#3', 'b#1', 'b#2', 'b#3'] });
  });

  it('never splits the synchronous run that crossed the threshold: the whole burst is one batch', async () => {
    const { store, outbox, target } = setup();
    burst(outbox, target, 'a', 1, EARLY_COMMIT_EVENTS * 2 + 1);
    await turns(1);
    expect(store.batches).toBe(1);
    expect(store.journal.filter((entry) => entry.op === 'write')).toHaveLength(1);
  });

  it('writes nothing early once closed: the owner flushes the rest itself', async () => {
    const { store, outbox, target } = setup();
    burst(outbox, target, 'a', 1, EARLY_COMMIT_EVENTS);
    outbox.close();
    await turns(1);
    expect(store.batches).toBe(0);
    expect(outbox.pending).toBe(EARLY_COMMIT_EVENTS);
    expect(outbox.flush()).toBe(true);
    expect(store.batches).toBe(1);
  });
});
