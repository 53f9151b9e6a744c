import type { SessionEvent } from '@interthought/protocol';
import { describe, expect, it } from 'vitest';
import { LOAD_WINDOW_MS } from '../../src/core/commit-window.js';
import { EARLY_COMMIT_EVENTS, Outbox, type OutboxTarget } from '../../src/core/outbox.js';
import type { Peer } from '../../src/core/session-service.js';
import { turns } from './support/harness.js';
import { RecordingStore } from './support/recording-store.js';

function deltaEvent(sessionId: string, seq: number): SessionEvent {
  return { type: 'step.delta', sessionId, seq, at: '2025-01-01T00:00:00.000Z', stepId: 'st', text: `token ${seq}` };
}

/**
 * An outbox on a fake clock: each write "costs" `commitCostMs` of it, and each run of a test's
 * own makes time pass with `tick`, so the window's judgement does not depend on this machine.
 */
function setup(commitCostMs: number) {
  const store = new RecordingStore();
  for (const sessionId of ['a', 'b', 'c']) {
    store.createSession({ info: { sessionId, task: 't', agent: 'x', status: 'running', revision: 0, createdAt: 'x' }, options: {}, lastSeq: 0 });
  }
  const clock = { now: 0 };
  store.onAppend = () => {
    clock.now += commitCostMs;
  };
  const outbox = new Outbox({ store, reportError: () => undefined, now: () => clock.now });
  const peer = store.peer('p');
  const target: OutboxTarget = { subscribers: new Map<Peer, number>([[peer, 0]]) };
  const seqs = new Map<string, number>();
  /** Queue `count` events of `sessionId`, all in the caller's synchronous run. */
  const burst = (sessionId: string, count: number): void => {
    for (let i = 0; i < count; i++) {
      const seq = (seqs.get(sessionId) ?? 0) + 1;
      seqs.set(sessionId, seq);
      outbox.enqueue({ target, event: deltaEvent(sessionId, seq) });
    }
  };
  return { store, outbox, peer, clock, burst };
}

/** Runs of one event each, 1 ms of the fake clock apart, for a whole load window: 1,000 runs a second. */
async function steadyRuns(context: ReturnType<typeof setup>): Promise<void> {
  for (let ms = 0; ms <= LOAD_WINDOW_MS; ms++) {
    context.clock.now += 1;
    context.burst('a', 1);
    await turns(1);
  }
}

describe('Outbox: while transactions are cheap, each run is committed when it returns', () => {
  it('writes and sends a run\'s events as soon as the code queuing them returns, before the turn ends', async () => {
    const { store, peer, burst } = setup(0.01);
    burst('a', 3);
    expect(store.batches).toBe(0);
    await Promise.resolve();
    expect(store.batches).toBe(1);
    expect(peer.frames).toHaveLength(3);
    expect(store.sentOnlyAfterWritten()).toBe(true);
  });

  it('gives two runs of one turn a transaction each, so the first run\'s events never wait for the second\'s fan-out', async () => {
    const { store, burst } = setup(0.01);
    burst('a', 3);
    await Promise.resolve();
    burst('b', 2);
    await Promise.resolve();
    expect(store.journal.filter((entry) => entry.op === 'write')).toEqual([
      { op: 'write', seqs: ['a#1', 'a#2', 'a#3'] },
      { op: 'write', seqs: ['b#1', 'b#2'] },
    ]);
    expect(store.sentOnlyAfterWritten()).toBe(true);
  });

  it('never splits a synchronous run: however big, it is one batch', async () => {
    const { store, burst } = setup(0.01);
    burst('a', EARLY_COMMIT_EVENTS * 2 + 1);
    await turns(1);
    expect(store.batches).toBe(1);
  });

  it('stays per run under a steady 1,000 runs a second when a commit costs 0.01 ms', async () => {
    const context = setup(0.01);
    await steadyRuns(context);
    const before = context.store.batches;
    context.burst('a', 1);
    await Promise.resolve();
    context.burst('b', 1);
    await Promise.resolve();
    expect(context.store.batches).toBe(before + 2);
  });
});

describe('Outbox: while transactions are dear, every run of a turn shares one', () => {
  async function dear() {
    // 1,000 runs a second × 1 ms a commit: per-run commits would hold the loop all the time.
    const context = setup(1);
    await steadyRuns(context);
    return context;
  }

  it('gathers the runs of one turn, of every session, into one transaction at the end of the turn', async () => {
    const { store, burst } = await dear();
    const before = store.journal.length;
    burst('b', 3);
    await Promise.resolve();
    burst('c', 3);
    await Promise.resolve();
    expect(store.journal.length).toBe(before);
    await turns(1);
    expect(store.journal.slice(before).filter((entry) => entry.op === 'write')).toEqual([{ op: 'write', seqs: ['b#1', 'b#2', 'b#3', 'c#1', 'c#2', 'c#3'] }]);
    expect(store.sentOnlyAfterWritten()).toBe(true);
  });

  it('still commits a burst of EARLY_COMMIT_EVENTS when its run returns, instead of holding it to the end of the turn', async () => {
    const { store, peer, burst } = await dear();
    const [batches, frames] = [store.batches, peer.frames.length];
    burst('b', EARLY_COMMIT_EVENTS + 10);
    await Promise.resolve();
    expect(store.batches).toBe(batches + 1);
    expect(peer.frames.length - frames).toBe(EARLY_COMMIT_EVENTS + 10);
  });

  it('writes nothing early once closed: the owner flushes the rest itself', async () => {
    const { store, outbox, burst } = await dear();
    const batches = store.batches;
    burst('b', EARLY_COMMIT_EVENTS);
    outbox.close();
    await turns(1);
    expect(store.batches).toBe(batches);
    expect(outbox.pending).toBe(EARLY_COMMIT_EVENTS);
    expect(outbox.flush()).toBe(true);
    expect(store.batches).toBe(batches + 1);
  });
});

describe('Outbox: closed before a cheap run returns', () => {
  it('writes nothing once closed, even per run', async () => {
    const { store, outbox, burst } = setup(0.01);
    burst('a', 3);
    outbox.close();
    await turns(1);
    expect(store.batches).toBe(0);
    expect(outbox.flush()).toBe(true);
    expect(store.batches).toBe(1);
  });
});
