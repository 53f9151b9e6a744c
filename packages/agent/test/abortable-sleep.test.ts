import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { abortableSleep } from '../src/abortable-sleep.js';

describe('abortableSleep', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('resolves once the time has passed', async () => {
    let done = false;
    const sleeping = abortableSleep(100, new AbortController().signal).then(() => {
      done = true;
    });
    await vi.advanceTimersByTimeAsync(99);
    expect(done).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await sleeping;
    expect(done).toBe(true);
  });

  it('rejects with the reason as soon as the signal aborts, and leaves no timer behind', async () => {
    const controller = new AbortController();
    const sleeping = abortableSleep(10_000, controller.signal);
    const reason = new Error('corrected');
    controller.abort(reason);
    await expect(sleeping).rejects.toBe(reason);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('rejects at once on a signal that has already aborted', async () => {
    const reason = new Error('cancelled');
    await expect(abortableSleep(10, AbortSignal.abort(reason))).rejects.toBe(reason);
    expect(vi.getTimerCount()).toBe(0);
  });
});
