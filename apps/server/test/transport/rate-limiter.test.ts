import { describe, expect, it } from 'vitest';
import { ConnectionRateLimiter, RejectionWindow, TokenBucket } from '../../src/transport/rate-limiter.js';

function manualClock(start = 0) {
  let now = start;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

describe('TokenBucket', () => {
  it('allows a full burst at once, then refuses', () => {
    const clock = manualClock();
    const bucket = new TokenBucket(10, 3, clock.now);
    expect([bucket.take(), bucket.take(), bucket.take(), bucket.take()]).toEqual([true, true, true, false]);
  });

  it('refills at the configured rate', () => {
    const clock = manualClock();
    const bucket = new TokenBucket(10, 3, clock.now);
    for (let i = 0; i < 3; i++) bucket.take();
    clock.advance(99);
    expect(bucket.take()).toBe(false);
    clock.advance(1);
    expect(bucket.take()).toBe(true);
    expect(bucket.take()).toBe(false);
  });

  it('never holds more than the burst', () => {
    const clock = manualClock();
    const bucket = new TokenBucket(10, 2, clock.now);
    clock.advance(60_000);
    expect([bucket.take(), bucket.take(), bucket.take()]).toEqual([true, true, false]);
  });
});

describe('RejectionWindow', () => {
  it('reports abuse only past the allowed number of rejections', () => {
    const clock = manualClock();
    const window = new RejectionWindow(2, 1_000, clock.now);
    expect([window.record(), window.record(), window.record()]).toEqual([false, false, true]);
  });

  it('forgets rejections older than the window', () => {
    const clock = manualClock();
    const window = new RejectionWindow(2, 1_000, clock.now);
    window.record();
    window.record();
    clock.advance(1_000);
    expect(window.record()).toBe(false);
  });
});

describe('ConnectionRateLimiter', () => {
  it('allows, then rejects, then closes a client that keeps going', () => {
    const clock = manualClock();
    const limiter = new ConnectionRateLimiter({ ratePerSec: 1, burst: 2, now: clock.now });
    const verdicts = Array.from({ length: 5 }, () => limiter.check());
    expect(verdicts).toEqual(['allow', 'allow', 'reject', 'reject', 'close']);
  });

  it('lets a client that slowed down carry on', () => {
    const clock = manualClock();
    const limiter = new ConnectionRateLimiter({ ratePerSec: 1, burst: 2, now: clock.now });
    limiter.check();
    limiter.check();
    expect(limiter.check()).toBe('reject');
    clock.advance(1_000);
    expect(limiter.check()).toBe('allow');
  });
});
