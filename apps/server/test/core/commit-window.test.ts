import { describe, expect, it } from 'vitest';
import { CommitWindow, LOAD_WINDOW_MS, NARROW_AT_LOAD, SMALL_BATCH_EVENTS, WIDEN_AT_LOAD } from '../../src/core/persistence/commit-window.js';

/** `runs` runs spread evenly over `ms`, starting at `from`; returns the time after the last. */
function runsOver(window: CommitWindow, from: number, ms: number, runs: number): number {
  for (let i = 0; i < runs; i++) window.noteRun(from + (i * ms) / runs);
  return from + ms;
}

/** The share of time per-run commits would take at `runsPerSec`. */
const projectedLoad = (window: CommitWindow, runsPerSec: number) => (window.transactionCostMs * runsPerSec) / 1_000;

describe('CommitWindow: per-run or per-turn commits', () => {
  it('commits run by run while transactions are cheap', async () => {
    const window = new CommitWindow();
    window.noteCommit(1, 0.02);
    // 4,000 runs a second × 0.02 ms = 8 % of the time.
    runsOver(window, 0, 2 * LOAD_WINDOW_MS, 2_000);
    expect(window.span).toBe('run');
  });

  it('widens to the turn once per-run commits would hold the loop more than WIDEN_AT_LOAD of the time', async () => {
    const window = new CommitWindow();
    window.noteCommit(1, 0.5);
    // 1,000 runs a second × 0.5 ms = 50 %, over WIDEN_AT_LOAD.
    expect(WIDEN_AT_LOAD).toBeLessThan(0.5);
    const later = runsOver(window, 0, LOAD_WINDOW_MS, 250);
    window.noteRun(later);
    expect(window.span).toBe('turn');
  });

  it('judges a window only once it is LOAD_WINDOW_MS long, so a short burst of runs does not widen it', async () => {
    const window = new CommitWindow();
    window.noteCommit(1, 5);
    runsOver(window, 0, LOAD_WINDOW_MS / 2, 500);
    expect(window.span).toBe('run');
  });

  it('narrows back to runs once transactions are cheap again, and not before the load is under NARROW_AT_LOAD', async () => {
    const window = new CommitWindow();
    window.noteCommit(1, 1);
    let now = runsOver(window, 0, LOAD_WINDOW_MS, 250);
    window.noteRun(now);
    expect(window.span).toBe('turn');
    // The disk speeds up: one cheap commit pulls the mean down a little; at 1,000 runs a second the load stays over NARROW_AT_LOAD.
    window.noteCommit(1, 0.05);
    now = runsOver(window, now, LOAD_WINDOW_MS, 250);
    window.noteRun(now);
    expect(projectedLoad(window, 1_000)).toBeGreaterThan(NARROW_AT_LOAD);
    expect(window.span).toBe('turn');
    for (let i = 0; i < 40; i++) window.noteCommit(1, 0.05);
    now = runsOver(window, now, LOAD_WINDOW_MS, 250);
    window.noteRun(now);
    expect(projectedLoad(window, 1_000)).toBeLessThan(NARROW_AT_LOAD);
    expect(window.span).toBe('run');
  });

  it('does not raise the estimate from a big batch: its time is mostly the cost of its rows', async () => {
    const window = new CommitWindow();
    window.noteCommit(SMALL_BATCH_EVENTS + 1, 50);
    expect(window.transactionCostMs).toBe(0);
    window.noteCommit(SMALL_BATCH_EVENTS, 0.3);
    expect(window.transactionCostMs).toBe(0.3);
  });

  it('in the turn span, commits the first run of a turn alone once per load window, to keep measuring a transaction', async () => {
    const window = new CommitWindow();
    window.noteCommit(1, 1);
    let now = runsOver(window, 0, LOAD_WINDOW_MS, 250);
    // This run closes the first window (judged: turn) and opens the next, whose probe is due.
    expect(window.noteRun(now, false)).toBe('turn');
    expect(window.span).toBe('turn');
    expect(window.noteRun(now + 1, true)).toBe('run');
    expect(window.noteRun(now + 2, true)).toBe('turn');
    expect(window.noteRun(now + 3, false)).toBe('turn');
    now = runsOver(window, now + 4, LOAD_WINDOW_MS, 250);
    expect(window.noteRun(now, true)).toBe('run');
  });

  it('ignores a duration that is not a time (a clock that went backwards, NaN, Infinity)', async () => {
    const window = new CommitWindow();
    window.noteCommit(1, -1);
    window.noteCommit(1, Number.NaN);
    window.noteCommit(1, Number.POSITIVE_INFINITY);
    expect(window.transactionCostMs).toBe(0);
    window.noteCommit(1, 0.5);
    expect(window.transactionCostMs).toBe(0.5);
  });

  it('ignores a run stamped with a time that is not one, and still judges the later ones', async () => {
    const window = new CommitWindow();
    window.noteCommit(1, 0.5);
    expect(window.noteRun(Number.NaN)).toBe('run');
    runsOver(window, 0, LOAD_WINDOW_MS, 250);
    window.noteRun(LOAD_WINDOW_MS);
    expect(window.span).toBe('turn');
  });

  it('counts a measured 0 ms as a sample, not as "no estimate yet"', async () => {
    const window = new CommitWindow();
    window.noteCommit(1, 0);
    window.noteCommit(1, 8);
    expect(window.transactionCostMs).toBe(1);
  });
});
