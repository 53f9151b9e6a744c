import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFAULT_BACKOFF, backoffDelay } from '../src/index.js';

const almostOne = () => 0.999_999;

describe('backoffDelay', () => {
  it('doubles its ceiling from the initial delay up to the maximum', () => {
    const ceilings = Array.from({ length: 9 }, (_, attempt) => backoffDelay(attempt, DEFAULT_BACKOFF, almostOne) + 1);
    expect(ceilings).toEqual([250, 500, 1_000, 2_000, 4_000, 8_000, 10_000, 10_000, 10_000]);
  });

  it('spreads delays over the whole range below the ceiling (full jitter)', () => {
    expect(backoffDelay(3, DEFAULT_BACKOFF, () => 0)).toBe(0);
    expect(backoffDelay(3, DEFAULT_BACKOFF, () => 0.5)).toBe(1_000);
  });

  it('stays a finite delay in [0, max) for any attempt, even a huge one', () => {
    fc.assert(
      fc.property(fc.integer({ min: -5, max: 1_000_000 }), fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), (attempt, random) => {
        const delay = backoffDelay(attempt, { initialDelayMs: 250, maxDelayMs: 10_000 }, () => random);
        expect(Number.isInteger(delay)).toBe(true);
        expect(delay).toBeGreaterThanOrEqual(0);
        expect(delay).toBeLessThan(10_000);
      }),
    );
  });
});
