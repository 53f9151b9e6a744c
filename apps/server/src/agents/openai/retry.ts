import type { RetryConfig } from './config.js';

/**
 * How long to wait before attempt `attempt + 1`: the endpoint's `retry-after-ms` or `Retry-After`
 * (seconds or an HTTP date) when it sends one, else exponential backoff; never above the cap.
 */
export function retryDelayMs(headers: Headers | undefined, attempt: number, retry: RetryConfig, now = Date.now()): number {
  const asked = requestedDelayMs(headers, now);
  const delay = asked ?? retry.baseDelayMs * 2 ** (attempt - 1);
  return Math.min(Math.max(0, Math.round(delay)), retry.maxDelayMs);
}

function requestedDelayMs(headers: Headers | undefined, now: number): number | undefined {
  const milliseconds = Number.parseFloat(headers?.get('retry-after-ms') ?? '');
  if (Number.isFinite(milliseconds)) return milliseconds;
  const value = headers?.get('retry-after')?.trim();
  if (!value) return undefined;
  if (/^\d+(\.\d+)?$/.test(value)) return Number(value) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : date - now;
}

/** "750 ms", "2 s", "1.5 s": for the notice the user sees while the agent waits. */
export function formatDelay(ms: number): string {
  if (ms < 1000) return `${ms} ms`;
  return `${Number((ms / 1000).toFixed(1))} s`;
}
