import { nowMicros } from '../../apps/server/src/agents/firehose/firehose-text.js';
import { forEachStamp } from './frame-reader.js';
import { LatencyRecorder } from './latency.js';
import { ScheduleLatency } from './schedule-latency.js';

/**
 * Counts and times the deltas healthy subscribers receive inside one measurement window; every
 * delta of a coalesced frame counts, with its own stamp. The window opens `warmupMs` after both
 * the first delta arrived and every subscriber is attached, and is judged by receive time, so at
 * saturation it counts what was delivered, not offered.
 */
export class DeltaMeter {
  readonly latency = new LatencyRecorder();
  /** Due → receive, when the sessions are paced at this many deltas a second each (see `ScheduleLatency`). */
  readonly scheduled: ScheduleLatency | undefined;
  measured = 0;
  orderViolations = 0;
  /** Frames in the window that carried several deltas (the server coalesced them for a reader behind). */
  coalescedFrames = 0;
  /** Bytes of delta frames the watchers received inside the window. */
  watcherBytes = 0;
  #firstDeltaAt: number | undefined;
  #windowStart = Infinity;
  #windowEnd = Infinity;
  #onFirstDelta: (() => void) | undefined;

  constructor(options: { pacedPerSec?: number } = {}) {
    this.scheduled = options.pacedPerSec === undefined ? undefined : new ScheduleLatency(options.pacedPerSec);
  }

  /** A handler for one connection's delta frames (it tracks that connection's index order). */
  handler(): (frame: Buffer) => void {
    let lastIndex = -1;
    const scheduled = this.scheduled?.connection();
    return (frame) => {
      const now = nowMicros();
      const inWindow = now >= this.#windowStart && now < this.#windowEnd;
      const stamps = forEachStamp(frame, (micros, index) => {
        if (lastIndex >= 0 && index !== lastIndex + 1) this.orderViolations++;
        lastIndex = index;
        scheduled?.(now, micros, index, inWindow);
        if (inWindow) {
          this.measured++;
          this.latency.record(now - micros);
        }
      });
      if (stamps === 0) return;
      if (stamps > 1 && inWindow) this.coalescedFrames++;
      if (this.#firstDeltaAt === undefined) {
        this.#firstDeltaAt = now;
        this.#onFirstDelta?.();
      }
    };
  }

  /** A handler for a watcher's delta frames: counted in bytes only, never in the figures. */
  watcherHandler(): (frame: Buffer) => void {
    return (frame) => {
      const now = nowMicros();
      if (now >= this.#windowStart && now < this.#windowEnd) this.watcherBytes += frame.length;
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
