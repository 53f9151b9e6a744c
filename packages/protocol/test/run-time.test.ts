import { describe, expect, it } from 'vitest';
import { applyEvents, createSessionState, runTimeMs, toSnapshot, type SessionEvent, type SessionStatus } from '../src/index.js';

const T0 = Date.parse('2026-12-01T10:00:00.000Z');

function statusAt(seq: number, seconds: number, status: SessionStatus): SessionEvent {
  return { type: 'session.status', sessionId: 's1', seq, at: new Date(T0 + seconds * 1_000).toISOString(), status };
}

describe('run time (PROTOCOL.md §11.1)', () => {
  it('adds up only the running intervals: waiting, paused and idle time does not count', () => {
    const state = applyEvents(createSessionState(), [
      statusAt(1, 0, 'running'),
      statusAt(2, 10, 'waiting'),
      statusAt(3, 70, 'running'),
      statusAt(4, 75, 'paused'),
      statusAt(5, 300, 'running'),
      statusAt(6, 305, 'idle'),
    ]);
    expect(state.runTime).toEqual({ totalMs: 20_000 });
    // A finished (or idle) session shows its total whatever the time.
    expect(runTimeMs(state.runTime, T0 + 10_000_000)).toBe(20_000);
  });

  it('keeps counting while the session runs, and a snapshot carries it', () => {
    const state = applyEvents(createSessionState(), [statusAt(1, 0, 'running'), statusAt(2, 4, 'waiting'), statusAt(3, 10, 'running')]);
    expect(runTimeMs(state.runTime, T0 + 12_000)).toBe(6_000);
    const rebuilt = createSessionState(toSnapshot(state));
    expect(rebuilt.runTime).toEqual({ totalMs: 4_000, runningSince: new Date(T0 + 10_000).toISOString() });
  });

  it('is unknown before the session first ran, and a snapshot leaves it out', () => {
    const state = applyEvents(createSessionState(), [statusAt(1, 0, 'idle')]);
    expect(state.runTime).toBeUndefined();
    expect(toSnapshot(state).runTime).toBeUndefined();
    expect(runTimeMs(undefined, T0)).toBeUndefined();
  });
});
