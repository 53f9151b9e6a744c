import { describe, expect, it } from 'vitest';
import { reconnectDelay } from '../src/worker/backoff.js';

describe('reconnectDelay', () => {
  it('doubles from the first delay, with jitter between half and all of each step', () => {
    expect([0, 1, 2, 3].map((attempt) => reconnectDelay(attempt, { initialMs: 100, random: () => 0 }))).toEqual([50, 100, 200, 400]);
    expect([0, 1, 2, 3].map((attempt) => reconnectDelay(attempt, { initialMs: 100, random: () => 0.999999 }))).toEqual([100, 200, 400, 800]);
  });

  it('is capped, however many attempts failed', () => {
    expect(reconnectDelay(50, { initialMs: 100, maxMs: 1_000, random: () => 0.999999 })).toBe(1_000);
    expect(reconnectDelay(10_000, { random: () => 0 })).toBe(15_000);
  });
});
