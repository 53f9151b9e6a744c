import { LatencyRecorder, type LatencySummary } from './latency.js';

/**
 * Latency from when a paced firehose delta was *due* to when a viewer received it, the same way
 * wherever the agent runs. The write stamp alone hides a stall of the agent's own event loop: an
 * agent in the server's process writes (and stamps) only once a stall is over, so the stall never
 * shows in its figures, while a worker's deltas, stamped on time in another process, wait through
 * it. Delta j of a run is due at `start + j / rate` (the firehose's `DeltaPacer`); no delta is
 * written before it is due, so `start` is the least of `stamp − j / rate` over the deltas one
 * connection received, and every delta's lateness behind its schedule counts.
 */
export class ScheduleLatency {
  readonly #periodMicros: number;
  /** Per connection: the least `stamp − index × period` seen, and `receive − index × period` of each delta in the window. */
  readonly #connections: Array<{ start: number; received: number[] }> = [];

  constructor(ratePerSec: number) {
    this.#periodMicros = 1_000_000 / ratePerSec;
  }

  /** A recorder for one connection's deltas: `observe(receive, stamp, index, inWindow)`. */
  connection(): (receiveMicros: number, stampMicros: number, index: number, inWindow: boolean) => void {
    const tracked = { start: Infinity, received: [] as number[] };
    this.#connections.push(tracked);
    return (receiveMicros, stampMicros, index, inWindow) => {
      const offset = index * this.#periodMicros;
      tracked.start = Math.min(tracked.start, stampMicros - offset);
      if (inWindow) tracked.received.push(receiveMicros - offset);
    };
  }

  summary(): LatencySummary {
    const recorder = new LatencyRecorder();
    for (const { start, received } of this.#connections) for (const at of received) recorder.record(at - start);
    return recorder.summary();
  }
}
