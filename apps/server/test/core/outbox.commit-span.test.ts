import type { SessionEvent } from '@interthought/protocol';
import { describe, expect, it } from 'vitest';
import { CommitWindow, LOAD_WINDOW_MS, type CommitSpan } from '../../src/core/persistence/commit-window.js';
import { EARLY_COMMIT_EVENTS, Outbox, type OutboxTarget } from '../../src/core/persistence/outbox.js';
import type { Peer } from '../../src/core/fanout/peer.js';
import { turns, until } from './support/harness.js';
import { RecordingStore } from '../support/recording-store.js';

function deltaEvent(sessionId: string, seq: number): SessionEvent {
  return { type: 'step.delta', sessionId, seq, at: '2025-01-01T00:00:00.000Z', stepId: 'st', text: `token ${seq}` };
}

/**
 * An outbox on a fake clock: each write "costs" `commitCostMs` of it and the tests move it on
 * themselves, so the window's judgement does not depend on this machine.
 */
function setup(commitCostMs: number, commitWindow?: CommitWindow) {
  const store = new RecordingStore();
  for (const sessionId of ['a', 'b', 'c']) {
    void store.createSession({ info: { sessionId, task: 't', agent: 'x', status: 'running', revision: 0, createdAt: 'x' }, options: {}, lastSeq: 0 });
  }
  const clock = { now: 0 };
  const cost = { ms: commitCostMs };
  store.onAppend = () => {
    clock.now += cost.ms;
  };
  const outbox = new Outbox({ store, reportError: () => undefined, now: () => clock.now, retryDelayMs: 1, maxRetryDelayMs: 1, ...(commitWindow ? { commitWindow } : {}) });
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
  return { store, outbox, peer, clock, cost, burst };
}

/**
 * Let the current turn's microtasks run (a run's end, the store's answer, the sends) but not the
 * next turn: what happens here happens "when the code queuing them returns".
 */
async function runEnd(): Promise<void> {
  for (let i = 0; i < 10; i++) await Promise.resolve();
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
    await runEnd();
    expect(store.batches).toBe(1);
    expect(peer.frames).toHaveLength(3);
    expect(store.sentOnlyAfterWritten()).toBe(true);
  });

  it('gives two runs of one turn a transaction each, so the first run\'s events never wait for the second\'s fan-out', async () => {
    const { store, burst } = setup(0.01);
    burst('a', 3);
    await runEnd();
    burst('b', 2);
    await runEnd();
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
    await runEnd();
    context.burst('b', 1);
    await runEnd();
    expect(context.store.batches).toBe(before + 2);
  });
});

/** A window held in the turn span: the outbox's side of it, without its measurements. */
class TurnSpan extends CommitWindow {
  override noteRun(): CommitSpan {
    return 'turn';
  }
  override commitAtRunEnd(queuedEvents: number): boolean {
    return queuedEvents >= EARLY_COMMIT_EVENTS;
  }
}

/** 1,000 runs a second × 1 ms a commit: per-run commits would hold the loop all the time. */
async function dear() {
  const context = setup(1);
  await steadyRuns(context);
  return context;
}

describe('Outbox: measuring what transactions cost', () => {
  it('widens to the turn under 1,000 runs a second when a commit costs 1 ms', async () => {
    const { store, burst } = await dear();
    // Three runs, two of which start a batch: at most one is the window's probe, so not three commits.
    const before = store.batches;
    for (const sessionId of ['b', 'c', 'b']) {
      burst(sessionId, 1);
      await runEnd();
    }
    await turns(1);
    expect(store.batches - before).toBeLessThanOrEqual(2);
    expect(store.sentOnlyAfterWritten()).toBe(true);
  });

  it('narrows back to per-run commits when the disk gets fast again, though the turn\'s batches are too big to measure it', async () => {
    const context = await dear();
    const { store, clock, cost, burst } = context;
    cost.ms = 0.001;
    // 20 runs a turn (batches of 20 events, over SMALL_BATCH_EVENTS), 10,000 runs a second: only
    // the probe, the first run of a turn once per window, measures a transaction by itself.
    for (let turn = 0; turn < 6_000; turn++) {
      for (let run = 0; run < 20; run++) {
        burst('b', 1);
        await runEnd();
      }
      clock.now += 2;
      await turns(1);
    }
    const before = store.batches;
    burst('c', 1);
    await runEnd();
    burst('c', 1);
    await runEnd();
    expect(store.batches).toBe(before + 2);
  });
});

describe('Outbox: while transactions are dear, every run of a turn shares one', () => {
  const turnSpan = () => setup(1, new TurnSpan());

  it('gathers the runs of one turn, of every session, into one transaction at the end of the turn', async () => {
    const { store, burst } = turnSpan();
    const before = store.journal.length;
    burst('b', 3);
    await runEnd();
    burst('c', 3);
    await runEnd();
    expect(store.journal.length).toBe(before);
    await turns(1);
    expect(store.journal.slice(before).filter((entry) => entry.op === 'write')).toEqual([{ op: 'write', seqs: ['b#1', 'b#2', 'b#3', 'c#1', 'c#2', 'c#3'] }]);
    expect(store.sentOnlyAfterWritten()).toBe(true);
  });

  it('still commits a burst of EARLY_COMMIT_EVENTS when its run returns, instead of holding it to the end of the turn', async () => {
    const { store, peer, burst } = turnSpan();
    const [batches, frames] = [store.batches, peer.frames.length];
    burst('b', EARLY_COMMIT_EVENTS + 10);
    await runEnd();
    expect(store.batches).toBe(batches + 1);
    expect(peer.frames.length - frames).toBe(EARLY_COMMIT_EVENTS + 10);
  });

  it('keeps events that failed to be written queued, then writes and sends them in order with the next retry', async () => {
    const { store, outbox, peer, burst } = turnSpan();
    const sent = peer.frames.length;
    store.failWrites = true;
    burst('b', 2);
    await turns(1);
    expect(outbox.pending).toBe(2);
    burst('b', 1);
    store.failWrites = false;
    await until(() => outbox.pending === 0, 'the retry to write the batch');
    expect(peer.frames.slice(sent).map((frame) => (JSON.parse(frame) as { seq: number }).seq)).toEqual([1, 2, 3]);
    expect(store.sentOnlyAfterWritten()).toBe(true);
  });

  it('gathers the rest of the turn again after a flush in the middle of it (a subscribe)', async () => {
    const { store, outbox, burst } = turnSpan();
    burst('b', 1);
    await runEnd();
    await outbox.flush();
    const afterFlush = store.batches;
    burst('c', 1);
    await runEnd();
    burst('c', 1);
    await runEnd();
    expect(store.batches).toBe(afterFlush);
    await turns(1);
    expect(store.batches).toBe(afterFlush + 1);
    expect(store.journal.filter((entry) => entry.op === 'write').at(-1)).toEqual({ op: 'write', seqs: ['c#1', 'c#2'] });
  });

  it('writes nothing early once closed: the owner flushes the rest itself', async () => {
    const { store, outbox, burst } = turnSpan();
    const batches = store.batches;
    burst('b', EARLY_COMMIT_EVENTS);
    outbox.close();
    await turns(1);
    expect(store.batches).toBe(batches);
    expect(outbox.pending).toBe(EARLY_COMMIT_EVENTS);
    expect(await outbox.flush()).toBe(true);
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
    expect(await outbox.flush()).toBe(true);
    expect(store.batches).toBe(1);
  });
});
