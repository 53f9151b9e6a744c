import { build, type Histogram } from 'hdr-histogram-js';

/** Percentiles of a latency distribution, in milliseconds. */
export interface LatencySummary {
  count: number;
  p50: number;
  p99: number;
  p999: number;
  max: number;
  mean: number;
}

/** One hour: a latency beyond it means the clock or the stamp is wrong, not the server. */
const HIGHEST_MICROS = 3_600_000_000;

/** Latencies recorded in microseconds (3 significant digits), summarised in milliseconds. */
export class LatencyRecorder {
  readonly #histogram: Histogram = build({
    lowestDiscernibleValue: 1,
    highestTrackableValue: HIGHEST_MICROS,
    numberOfSignificantValueDigits: 3,
    autoResize: false,
  });
  /** Values outside the trackable range (negative: stamps from another clock). */
  outOfRange = 0;

  record(micros: number): void {
    if (micros < 0 || micros > HIGHEST_MICROS) {
      this.outOfRange++;
      return;
    }
    this.#histogram.recordValue(Math.max(1, Math.round(micros)));
  }

  get count(): number {
    return this.#histogram.totalCount;
  }

  summary(): LatencySummary {
    const h = this.#histogram;
    const ms = (micros: number) => Math.round(micros) / 1_000;
    if (h.totalCount === 0) return { count: 0, p50: 0, p99: 0, p999: 0, max: 0, mean: 0 };
    return {
      count: h.totalCount,
      p50: ms(h.getValueAtPercentile(50)),
      p99: ms(h.getValueAtPercentile(99)),
      p999: ms(h.getValueAtPercentile(99.9)),
      max: ms(h.maxValue),
      mean: ms(h.mean),
    };
  }
}
