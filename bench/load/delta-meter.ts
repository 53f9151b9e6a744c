import { nowMicros } from '../../apps/server/src/agents/firehose/firehose-text.js';
import { readFrameStamp } from './frame-reader.js';
import { LatencyRecorder } from './latency.js';

/**
 * Counts and times the deltas healthy subscribers receive inside one measurement window. The
 * window opens `warmupMs` after both the first delta arrived and every subscriber is attached,
 * and is judged by receive time, so at saturation it counts what was delivered, not offered.
 */
export class DeltaMeter {
  readonly latency = new LatencyRecorder();
  measured = 0;
  orderViolations = 0;
  #firstDeltaAt: number | undefined;
  #windowStart = Infinity;
  #windowEnd = Infinity;
  #onFirstDelta: (() => void) | undefined;

  /** A handler for one connection's delta frames (it tracks that connection's index order). */
  handler(): (frame: Buffer) => void {
    let lastIndex = -1;
    return (frame) => {
      const now = nowMicros();
      const stamp = readFrameStamp(frame);
      if (stamp === undefined) return;
      if (lastIndex >= 0 && stamp.index !== lastIndex + 1) this.orderViolations++;
      lastIndex = stamp.index;
      if (this.#firstDeltaAt === undefined) {
        this.#firstDeltaAt = now;
        this.#onFirstDelta?.();
      }
      if (now >= this.#windowStart && now < this.#windowEnd) {
        this.measured++;
        this.latency.record(now - stamp.micros);
      }
    };
  }

  /** Resolves when any handler has seen a delta; rejects after `timeoutMs`. Any number of callers may wait. */
  firstDelta(timeoutMs: number): Promise<number> {
    if (this.#firstDeltaAt !== undefined) return Promise.resolve(this.#firstDeltaAt);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`No delta arrived within ${timeoutMs} ms of the sessions starting.`)), timeoutMs);
      const previous = this.#onFirstDelta;
      this.#onFirstDelta = () => {
        previous?.();
        clearTimeout(timer);
        resolve(this.#firstDeltaAt ?? nowMicros());
      };
    });
  }

  /**
   * Open the window `warmupMs` after `readyAt` (µs) and close it `measureMs` later; resolves
   * when it has closed, with its length in ms.
   */
  async measure(readyAt: number, warmupMs: number, measureMs: number): Promise<number> {
    this.#windowStart = readyAt + warmupMs * 1_000;
    this.#windowEnd = this.#windowStart + measureMs * 1_000;
    const waitMs = Math.max(0, (this.#windowEnd - nowMicros()) / 1_000);
    await new Promise((resolve) => setTimeout(resolve, Math.ceil(waitMs) + 1));
    return measureMs;
  }
}
