import { vi } from 'vitest';

/**
 * The clock of the server's timers, of jose and of the tokens a test signs, made fake so a
 * token's seconds pass at once; sockets stay real (setImmediate and I/O are not faked). Started on
 * a whole second, so a token signed with `expiresInS: 2` (its `exp` counts whole seconds) expires
 * exactly 2 s later. Call `vi.useRealTimers()` after the test.
 */
export function useTokenClock(): void {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
  vi.setSystemTime(Math.ceil(Date.now() / 1_000) * 1_000);
}

/** Wait on real time until `condition`, for what the sockets carry while the clock stands still. */
export async function untilReally(condition: () => boolean, what: string, timeoutMs = 5_000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!condition()) {
    if (performance.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setImmediate(resolve));
  }
}
