/** How long the client waits between reconnection attempts. */
export interface BackoffOptions {
  /** The ceiling of the first delay, in ms. */
  initialDelayMs: number;
  /** The largest ceiling, in ms, however many attempts failed. */
  maxDelayMs: number;
}

/** 250 ms doubling up to 10 s. */
export const DEFAULT_BACKOFF: BackoffOptions = { initialDelayMs: 250, maxDelayMs: 10_000 };

/**
 * The delay before reconnection attempt `attempt` (0-based): exponential backoff with full jitter,
 * uniform in [0, min(max, initial · 2^attempt)), so many clients dropped at once do not return in step.
 */
export function backoffDelay(attempt: number, options: BackoffOptions, random: () => number = Math.random): number {
  // Cap the exponent: 2^31 already exceeds any sensible ceiling, and larger ones overflow to Infinity.
  const ceiling = Math.min(options.maxDelayMs, options.initialDelayMs * 2 ** Math.min(Math.max(attempt, 0), 31));
  return Math.floor(random() * ceiling);
}
