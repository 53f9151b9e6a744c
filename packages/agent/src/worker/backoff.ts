/** How long to wait before reconnect attempt `attempt` (0-based): doubling from `initialMs`, capped at `maxMs`. */
export interface BackoffOptions {
  /** The first delay (default 250 ms). */
  initialMs?: number;
  /** The cap (default 30 s). */
  maxMs?: number;
  /** A number in [0, 1); `Math.random` unless a test fixes it. */
  random?: () => number;
}

export const BACKOFF_DEFAULTS = { initialMs: 250, maxMs: 30_000 } as const;

/**
 * "Equal jitter": half the capped exponential delay, plus a random part of the other half, so
 * workers a server restart dropped together do not all come back in the same millisecond, and
 * none retries sooner than half its step.
 */
export function reconnectDelay(attempt: number, options: BackoffOptions = {}): number {
  const initial = options.initialMs ?? BACKOFF_DEFAULTS.initialMs;
  const max = Math.max(initial, options.maxMs ?? BACKOFF_DEFAULTS.maxMs);
  const random = options.random ?? Math.random;
  const capped = Math.min(max, initial * 2 ** Math.min(attempt, 30));
  return Math.round(capped / 2 + random() * (capped / 2));
}
