/** How big a run is: `smoke` keeps the harness from rotting in CI, `quick` is the default, `full` the real figures. */
export type BenchMode = 'smoke' | 'quick' | 'full';

export interface StreamScale {
  sessions: number;
  /** Healthy subscribers per session (the creator included). */
  subscribers: number;
  warmupMs: number;
  measureMs: number;
}

/** A browser opens a chain of `leadSteps` steps, then the session streams `streamSteps` more at `rate` deltas/s. */
export interface BrowserChainScale {
  leadSteps: number;
  streamSteps: number;
  /** Deltas per step. */
  perStep: number;
  rate: number;
  /** The firehose's wait between the lead and the stream: time for the page to open the lead. */
  delayMs: number;
  /** The very long chain (every step a row): its lead, written at once, and the steps streamed onto it. */
  longLeadSteps: number;
  longStreamSteps: number;
  /** The wait before its stream: a 10,000-step snapshot takes longer to fetch on a loaded machine. */
  longDelayMs: number;
}

/**
 * Two cluster nodes sharing one Redis (AOF fsynced every second for the latency levels, on every
 * write for saturation and takeover). Sessions are created on
 * node a; `subscribersPerNode` follow each session on node a (its owner) and as many on node b.
 * The single-node reference (SQLite in memory) gets the same sessions with both groups on its one
 * server, so it delivers the same frames.
 */
export interface ClusterScale {
  sessions: number;
  subscribersPerNode: number;
  /** Delivered frames per second over every subscriber, as in `throughput`; the first is the one the target compares. */
  offeredPerSec: number[];
  /**
   * Rounds of the first level, the single node and the cluster in turn; its figures are the
   * median round's. One round's p99 is the hundredth-slowest of a few thousand deltas, so a
   * single scheduling stall of either side on this shared machine moves it several-fold.
   */
  rounds: number;
  /**
   * Unmeasured rounds of the first level on the single node and on the cluster first. Both read
   * their worst p99s in the first rounds after start (the cluster 7–14 ms, the single node 2–3 ms)
   * and settle after about three: what is measured is a running server, not a starting one.
   */
  warmUpRounds: number;
  warmupMs: number;
  measureMs: number;
  /** The nodes' INTERTHOUGHT_LEASE_TTL_MS and INTERTHOUGHT_SWEEP_MS (smoke shortens them so a takeover fits in seconds). */
  leaseTtlMs: number;
  sweepMs: number;
  /** Sessions streaming, followed from node b, when node a is killed; and their offered rate (delivered on b). */
  takeover: { sessions: number; offeredPerSec: number; streamMs: number };
}

export interface Scale {
  /** Characters per delta. */
  deltaSize: number;
  /** The firehose's start delay, so subscribers attach before the stream starts. */
  startDelayMs: number;
  /** Reuse one server per kind across scenarios (smoke: startup dominates a tiny run). */
  reuseTargets: boolean;
  /** A short unmeasured stream on every new server (JIT, pools, SQLite pages), so no figure pays for a cold start. */
  serverWarmUpMs: number;
  throughput: StreamScale & { offeredPerSec: number[] };
  idle: { connections: number };
  correction: StreamScale & { backgroundPerSec: number; corrections: number; gapMs: number };
  replay: { events: number; repeats: number };
  store: StreamScale & { offeredPerSec: number };
  /**
   * `readers` watch every session: they read in the first run and stall in the second, which
   * starts measuring only `stallLeadMs` after they stalled, once their buffers are full.
   */
  slowConsumers: StreamScale & { readers: number; stallLeadMs: number; offeredPerSec: number };
  browserChain: BrowserChainScale;
  cluster: ClusterScale;
  /** The firehose served by a worker over /ws/agents vs in the server's process: a fixed level (latency), then saturation. */
  worker: StreamScale & { offeredPerSec: number };
}

export const SCALES: Record<BenchMode, Scale> = {
  smoke: {
    deltaSize: 32,
    startDelayMs: 50,
    reuseTargets: true,
    serverWarmUpMs: 0,
    throughput: { sessions: 2, subscribers: 2, warmupMs: 50, measureMs: 300, offeredPerSec: [2_000] },
    idle: { connections: 50 },
    correction: { sessions: 2, subscribers: 2, warmupMs: 50, measureMs: 300, backgroundPerSec: 2_000, corrections: 3, gapMs: 20 },
    replay: { events: 2_000, repeats: 1 },
    store: { sessions: 2, subscribers: 2, warmupMs: 50, measureMs: 300, offeredPerSec: 2_000 },
    slowConsumers: { sessions: 2, subscribers: 5, readers: 4, stallLeadMs: 100, warmupMs: 50, measureMs: 300, offeredPerSec: 2_000 },
    browserChain: { leadSteps: 100, streamSteps: 50, perStep: 10, rate: 1_000, delayMs: 12_000, longLeadSteps: 300, longStreamSteps: 30, longDelayMs: 12_000 },
    worker: { sessions: 1, subscribers: 5, warmupMs: 50, measureMs: 300, offeredPerSec: 2_000 },
    cluster: {
      sessions: 2,
      subscribersPerNode: 1,
      offeredPerSec: [2_000],
      rounds: 1,
      warmUpRounds: 0,
      warmupMs: 50,
      measureMs: 300,
      leaseTtlMs: 1_000,
      sweepMs: 250,
      takeover: { sessions: 2, offeredPerSec: 500, streamMs: 300 },
    },
  },
  quick: {
    deltaSize: 32,
    startDelayMs: 200,
    reuseTargets: false,
    serverWarmUpMs: 1_000,
    throughput: { sessions: 10, subscribers: 10, warmupMs: 500, measureMs: 2_000, offeredPerSec: [20_000, 50_000] },
    idle: { connections: 2_000 },
    correction: { sessions: 10, subscribers: 10, warmupMs: 500, measureMs: 3_000, backgroundPerSec: 20_000, corrections: 50, gapMs: 40 },
    replay: { events: 100_000, repeats: 3 },
    store: { sessions: 10, subscribers: 10, warmupMs: 500, measureMs: 2_000, offeredPerSec: 20_000 },
    slowConsumers: { sessions: 10, subscribers: 20, readers: 20, stallLeadMs: 1_500, warmupMs: 500, measureMs: 2_000, offeredPerSec: 20_000 },
    browserChain: { leadSteps: 1_500, streamSteps: 500, perStep: 10, rate: 1_000, delayMs: 8_000, longLeadSteps: 10_000, longStreamSteps: 300, longDelayMs: 25_000 },
    worker: { sessions: 1, subscribers: 25, warmupMs: 500, measureMs: 2_000, offeredPerSec: 20_000 },
    cluster: {
      sessions: 10,
      subscribersPerNode: 1,
      offeredPerSec: [5_000, 20_000],
      rounds: 5,
      warmUpRounds: 3,
      warmupMs: 500,
      measureMs: 2_000,
      leaseTtlMs: 3_000,
      sweepMs: 1_000,
      takeover: { sessions: 10, offeredPerSec: 2_000, streamMs: 1_000 },
    },
  },
  full: {
    deltaSize: 32,
    startDelayMs: 500,
    reuseTargets: false,
    serverWarmUpMs: 2_000,
    throughput: { sessions: 20, subscribers: 25, warmupMs: 1_000, measureMs: 5_000, offeredPerSec: [20_000, 50_000] },
    idle: { connections: 10_000 },
    correction: { sessions: 20, subscribers: 25, warmupMs: 1_000, measureMs: 8_000, backgroundPerSec: 20_000, corrections: 200, gapMs: 30 },
    replay: { events: 100_000, repeats: 5 },
    store: { sessions: 20, subscribers: 25, warmupMs: 1_000, measureMs: 5_000, offeredPerSec: 20_000 },
    slowConsumers: { sessions: 10, subscribers: 100, readers: 100, stallLeadMs: 4_000, warmupMs: 1_000, measureMs: 5_000, offeredPerSec: 20_000 },
    browserChain: { leadSteps: 2_000, streamSteps: 1_000, perStep: 10, rate: 1_000, delayMs: 10_000, longLeadSteps: 10_000, longStreamSteps: 1_000, longDelayMs: 25_000 },
    worker: { sessions: 1, subscribers: 25, warmupMs: 1_000, measureMs: 5_000, offeredPerSec: 20_000 },
    cluster: {
      sessions: 20,
      subscribersPerNode: 1,
      offeredPerSec: [5_000, 20_000],
      rounds: 5,
      warmUpRounds: 3,
      warmupMs: 1_000,
      measureMs: 5_000,
      leaseTtlMs: 3_000,
      sweepMs: 1_000,
      takeover: { sessions: 20, offeredPerSec: 2_000, streamMs: 2_000 },
    },
  },
};
