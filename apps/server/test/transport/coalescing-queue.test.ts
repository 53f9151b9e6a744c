import type { SessionEvent, StepDeltaEvent } from '@interthought/protocol';
import { describe, expect, it } from 'vitest';
import { liveEventFrame, storedFrame } from '../../src/core/fanout/frame.js';
import { CoalescingQueue } from '../../src/transport/coalescing-queue.js';

const at = '2025-01-01T00:00:00.000Z';

function delta(seq: number, text: string, stepId = 'st_1', sessionId = 'sess_1'): StepDeltaEvent {
  return { type: 'step.delta', sessionId, seq, at, stepId, text };
}

function status(seq: number, sessionId = 'sess_1'): SessionEvent {
  return { type: 'session.status', sessionId, seq, at, status: 'running' };
}

/** Queue events the way the outbox hands them over: each with its one serialisation. */
function queueOf(...events: SessionEvent[]): CoalescingQueue {
  const queue = new CoalescingQueue();
  for (const event of events) queue.push(liveEventFrame(event, JSON.stringify(event)));
  return queue;
}

function drain(queue: CoalescingQueue): unknown[] {
  const frames: unknown[] = [];
  for (let frame = queue.shift(); frame !== undefined; frame = queue.shift()) frames.push(JSON.parse(frame));
  return frames;
}

describe('CoalescingQueue', () => {
  it('merges consecutive deltas of one step into one delta carrying fromSeq, the last seq and the joined text', () => {
    const queue = queueOf(delta(3, 'Hel'), delta(4, 'lo'), delta(5, ' world'));
    expect(queue.length).toBe(1);
    expect(drain(queue)).toEqual([{ ...delta(5, 'Hello world'), fromSeq: 3 }]);
  });

  it('sends a delta that nothing merged into exactly as the core serialised it', () => {
    const event = delta(7, 'alone');
    const frame = JSON.stringify(event);
    const queue = new CoalescingQueue();
    queue.push(liveEventFrame(event, frame));
    expect(queue.shift()).toBe(frame);
  });

  it('keeps other events in order after the deltas and starts a new run after them', () => {
    const queue = queueOf(delta(1, 'a'), delta(2, 'b'), status(3), delta(4, 'c'), delta(5, 'd'));
    expect(drain(queue)).toEqual([{ ...delta(2, 'ab'), fromSeq: 1 }, status(3), { ...delta(5, 'cd'), fromSeq: 4 }]);
  });

  it('does not merge deltas of different steps or deltas with a seq gap between them', () => {
    const queue = queueOf(delta(1, 'a', 'st_1'), delta(2, 'b', 'st_2'), delta(4, 'c', 'st_2'));
    expect(drain(queue)).toEqual([delta(1, 'a', 'st_1'), delta(2, 'b', 'st_2'), delta(4, 'c', 'st_2')]);
  });

  it('merges a session\'s deltas around frames of another session, keeping each session in order', () => {
    const queue = queueOf(delta(1, 'a'), delta(9, 'x', 'st_b', 'sess_2'), delta(2, 'b'), delta(10, 'y', 'st_b', 'sess_2'));
    expect(drain(queue)).toEqual([{ ...delta(2, 'ab'), fromSeq: 1 }, { ...delta(10, 'xy', 'st_b', 'sess_2'), fromSeq: 9 }]);
  });

  it('merges nothing across a frame without an event (an answer, a snapshot, a replayed event)', () => {
    const queue = queueOf(delta(1, 'a'));
    queue.push(storedFrame(JSON.stringify({ type: 'session.subscribed', sessionId: 'sess_1', afterSeq: 0, lastSeq: 1 })));
    queue.push(liveEventFrame(delta(2, 'b'), JSON.stringify(delta(2, 'b'))));
    expect(drain(queue)).toEqual([delta(1, 'a'), { type: 'session.subscribed', sessionId: 'sess_1', afterSeq: 0, lastSeq: 1 }, delta(2, 'b')]);
  });

  it('starts a new run once the merged run has been sent', () => {
    const queue = queueOf(delta(1, 'a'), delta(2, 'b'));
    expect(JSON.parse(queue.shift()!)).toEqual({ ...delta(2, 'ab'), fromSeq: 1 });
    queue.push(liveEventFrame(delta(3, 'c'), JSON.stringify(delta(3, 'c'))));
    expect(drain(queue)).toEqual([delta(3, 'c')]);
  });

  it('counts the bytes waiting: whole frames, plus the UTF-8 text merged into a run', () => {
    const first = delta(1, 'ab');
    const queue = queueOf(first);
    expect(queue.bytes).toBe(Buffer.byteLength(JSON.stringify(first)));
    queue.push(liveEventFrame(delta(2, 'été'), JSON.stringify(delta(2, 'été'))));
    expect(queue.bytes).toBe(Buffer.byteLength(JSON.stringify(first)) + Buffer.byteLength('été'));
    queue.shift();
    expect(queue.bytes).toBe(0);
    expect(queue.isEmpty).toBe(true);
  });

  it('keeps the order of thousands of frames across its compaction', () => {
    const queue = new CoalescingQueue();
    const sent: number[] = [];
    for (let seq = 1; seq <= 5_000; seq++) {
      queue.push(liveEventFrame(status(seq), JSON.stringify(status(seq))));
      if (seq % 3 === 0) sent.push((JSON.parse(queue.shift()!) as SessionEvent).seq);
    }
    for (const frame of drain(queue)) sent.push((frame as SessionEvent).seq);
    expect(sent).toEqual(Array.from({ length: 5_000 }, (_, index) => index + 1));
  });

  it('drops everything on clear', () => {
    const queue = queueOf(delta(1, 'a'), status(2));
    queue.clear();
    expect(queue.isEmpty).toBe(true);
    expect(queue.bytes).toBe(0);
    expect(queue.shift()).toBeUndefined();
  });
});
