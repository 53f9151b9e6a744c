/** One clock for every limiter (a default closure per instance would cost each connection one). */
const monotonicNow = (): number => performance.now();

/** A token bucket: `burst` requests at once, refilled at `ratePerSec`. */
export class TokenBucket {
  #tokens: number;
  #refilledAt: number;

  constructor(
    readonly ratePerSec: number,
    readonly burst: number,
    private readonly now: () => number = monotonicNow,
  ) {
    this.#tokens = burst;
    this.#refilledAt = now();
  }

  /** Take one token; false when the bucket is empty (the request must not run). */
  take(): boolean {
    const now = this.now();
    this.#tokens = Math.min(this.burst, this.#tokens + ((now - this.#refilledAt) / 1000) * this.ratePerSec);
    this.#refilledAt = now;
    if (this.#tokens < 1) return false;
    this.#tokens -= 1;
    return true;
  }
}

/**
 * Counts rate-limit rejections in a sliding window. A client that keeps sending after being told
 * it is rate limited is abusive, not unlucky: `exceeded()` tells the transport to close it.
 */
export class RejectionWindow {
  readonly #times: number[] = [];

  constructor(
    readonly maxRejections: number,
    readonly windowMs: number,
    private readonly now: () => number = monotonicNow,
  ) {}

  /** Record a rejection; true once more than `maxRejections` happened within the window. */
  record(): boolean {
    const now = this.now();
    this.#times.push(now);
    while (this.#times.length > 0 && (this.#times[0] ?? now) <= now - this.windowMs) this.#times.shift();
    return this.#times.length > this.maxRejections;
  }
}

/**
 * The per-connection limiter: a bucket for requests and a window for repeated rejections, made
 * when first needed (most connections are never refused, many never send a request).
 */
export class ConnectionRateLimiter {
  readonly #options: { ratePerSec: number; burst: number; now?: () => number };
  #bucket: TokenBucket | undefined;
  #rejections: RejectionWindow | undefined;

  constructor(options: { ratePerSec: number; burst: number; now?: () => number }) {
    this.#options = options;
  }

  /** `allow`: run the request; `reject`: answer RATE_LIMITED; `close`: end the connection (abuse). */
  check(): 'allow' | 'reject' | 'close' {
    const { ratePerSec, burst, now } = this.#options;
    this.#bucket ??= new TokenBucket(ratePerSec, burst, now);
    if (this.#bucket.take()) return 'allow';
    // As many rejections in 10 s as the burst allows requests: well past any honest client's mistake.
    this.#rejections ??= new RejectionWindow(burst, 10_000, now);
    return this.#rejections.record() ? 'close' : 'reject';
  }
}
