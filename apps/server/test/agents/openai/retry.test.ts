import { describe, expect, it } from 'vitest';
import { formatDelay, retryDelayMs } from '../../../src/agents/openai/retry.js';

const retry = { attempts: 3, baseDelayMs: 1_000, maxDelayMs: 30_000 };

describe('retryDelayMs', () => {
  it('doubles the base wait with each attempt when the endpoint asks for none', () => {
    expect([1, 2, 3].map((attempt) => retryDelayMs(new Headers(), attempt, retry))).toEqual([1_000, 2_000, 4_000]);
  });

  it('honours retry-after-ms, then Retry-After in seconds, then as an HTTP date', () => {
    const now = Date.parse('2025-01-01T00:00:00Z');
    expect(retryDelayMs(new Headers({ 'retry-after-ms': '1500', 'retry-after': '9' }), 1, retry, now)).toBe(1_500);
    expect(retryDelayMs(new Headers({ 'retry-after': '2' }), 1, retry, now)).toBe(2_000);
    expect(retryDelayMs(new Headers({ 'retry-after': 'Wed, 01 Jan 2025 00:00:07 GMT' }), 1, retry, now)).toBe(7_000);
  });

  it('never waits longer than the cap, nor less than nothing', () => {
    expect(retryDelayMs(new Headers({ 'retry-after': '3600' }), 1, retry)).toBe(30_000);
    expect(retryDelayMs(new Headers(), 10, retry)).toBe(30_000);
    expect(retryDelayMs(new Headers({ 'retry-after': 'Wed, 01 Jan 2020 00:00:00 GMT' }), 1, retry)).toBe(0);
  });

  it('falls back to backoff when Retry-After is unreadable', () => {
    expect(retryDelayMs(new Headers({ 'retry-after': 'soon' }), 2, retry)).toBe(2_000);
  });
});

describe('formatDelay', () => {
  it('reads as milliseconds below a second and as seconds above', () => {
    expect([750, 1_000, 1_500, 2_000].map(formatDelay)).toEqual(['750 ms', '1 s', '1.5 s', '2 s']);
  });
});
