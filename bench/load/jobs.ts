/**
 * What the harness asks of the load-generator child and what it answers, over the child's IPC
 * channel. Plain JSON: the child runs in its own process so it never shares a CPU turn with
 * the server it measures, and runs one job at a time.
 */
import type { LatencySummary } from './latency.js';
import type { SeqCheck } from './seq-tracker.js';

/** Sessions streaming firehose deltas to subscribers. */
export interface StreamSpec {
  /** The WebSocket URL (`ws://127.0.0.1:PORT/ws` or the baseline's). */
  url: string;
  sessions: number;
  /** Connections subscribed to each session, the creator included. */
  subscribersPerSession: number;
  /**
   * Extra connections that subscribe to every session and are not measured: the slow-consumer
   * scenario compares them reading normally with them stalled, so only the stalling differs.
   */
  watchers: number;
  /** Watchers stop reading at the TCP level once subscribed. */
  watchersStall: boolean;
  /** Hold every connection open after the window (`holding`) so the harness can measure the server's backlog. */
  holdAtEnd?: boolean;
  /** The firehose task text of every session (rate, size, step; `delay` lets subscribers attach). */
  task: string;
  /** The agent of every session: `firehose` unless a scenario streams the same plan from another (a worker's). */
  agent?: string;
  /** Time after the stream starts that is left out of the figures (connection churn, JIT warm-up). */
  warmupMs: number;
  /** How long deltas are counted after the warm-up. */
  measureMs: number;
  /** The sessions are paced at this many deltas a second each: measure due → receive too (`scheduledLatency`). */
  pacedPerSec?: number;
}

export interface StreamJob {
  kind: 'stream';
  stream: StreamSpec;
}

/** Open connections, hold them while the harness measures the target's memory, then close. */
export interface IdleJob {
  kind: 'idle';
  url: string;
  connections: number;
}

/** Correct the streaming step of one session again and again while background sessions stream. */
export interface CorrectionJob {
  kind: 'correction';
  background: StreamSpec;
  /** The task of the session that is corrected. */
  correctedTask: string;
  corrections: number;
  /** Pause between one regenerated delta and the next correction. */
  gapMs: number;
}

/** Build a session of `events` events, then subscribe to it with `afterSeq: 0`, `repeats` times. */
export interface ReplayJob {
  kind: 'replay';
  url: string;
  /** The firehose task that builds the session (rate=max, count=…). */
  task: string;
  repeats: number;
}

/** Subscribers measured together: on one server (a cluster node), `perSession` following each session. */
export interface SubscriberGroup {
  label: string;
  url: string;
  perSession: number;
}

/**
 * Sessions created on one server (`ownerUrl`, the cluster node that then owns them) and followed
 * from `afterSeq: 0` by groups of subscribers, each group on its own server and measured apart.
 * The creators unsubscribe at once, so only the groups read the stream. Every subscriber's seqs
 * are checked from 1 to its session's final status.
 */
export interface FollowJob {
  kind: 'follow';
  ownerUrl: string;
  groups: SubscriberGroup[];
  sessions: number;
  task: string;
  warmupMs: number;
  measureMs: number;
  /**
   * `cancel`: after the window, cancel the sessions and wait until every subscriber saw its final
   * status. `owner-killed`: after the window, hold (`holding`) while the harness kills the owner,
   * then wait until every subscriber saw `session.status interrupted`.
   */
  end: 'cancel' | 'owner-killed';
  /** How long subscribers may take to see the end before they count as unfinished. */
  endTimeoutMs: number;
}

export type LoadJob = StreamJob | IdleJob | CorrectionJob | ReplayJob | FollowJob;

export interface StreamResult {
  kind: 'stream';
  /** Deltas received by healthy subscribers inside the measurement window, per second. */
  deliveredPerSec: number;
  deltasMeasured: number;
  windowMs: number;
  /** The agent's write stamp → a viewer's receive. */
  latency: LatencySummary;
  /** When the spec says `pacedPerSec`: the delta's due time on the agent's schedule → a viewer's receive (load/schedule-latency.ts). */
  scheduledLatency?: LatencySummary;
  connections: number;
  watchers: number;
  watchersStalled: boolean;
  /** Delta bytes per second each watcher read in the window (0 when stalled). */
  watcherBytesPerSec: number;
  /** Deltas that arrived out of index order on a connection (must be 0). */
  orderViolations: number;
  /** Frames in the window carrying several deltas: the server coalesced them for a subscriber behind. */
  coalescedFrames: number;
  /** Healthy subscribers the server closed, by close code (4008: slow consumer). */
  closedByServer: Record<string, number>;
  /** Watchers the server closed, by close code. */
  watchersClosedByServer: Record<string, number>;
  /** Error frames received, by code. */
  errors: Record<string, number>;
  setupMs: number;
}

export interface IdleResult {
  kind: 'idle';
  connections: number;
  connectMs: number;
  errors: Record<string, number>;
}

export interface CorrectionResult {
  kind: 'correction';
  /** `step.correct` sent → `correction.accepted` received. */
  accepted: LatencySummary;
  /** `step.correct` sent → first delta of the regenerated step received. */
  roundTrip: LatencySummary;
  corrections: number;
  refused: Record<string, number>;
  background: StreamResult;
}

export interface ReplayResult {
  kind: 'replay';
  /** Events in the built session (its last seq). */
  events: number;
  buildMs: number;
  /** Events per second of each replay (subscribe sent → last event received). */
  replayPerSec: number[];
  /** How the server answered: 'events' (replayed), or 'snapshot' (the events were no longer kept). */
  answeredWith: 'events' | 'snapshot';
  /** Times a replay was cut by the server (e.g. 4008 slow consumer) and resumed from its last seq. */
  resumes: number;
  errors: Record<string, number>;
}

/** One subscriber group of a follow run. */
export interface FollowGroupResult {
  label: string;
  subscribers: number;
  /** Deltas its subscribers received inside the measurement window, per second. */
  deliveredPerSec: number;
  deltasMeasured: number;
  latency: LatencySummary;
  /** Deltas out of firehose index order on a connection. */
  orderViolations: number;
  coalescedFrames: number;
  closedByServer: Record<string, number>;
  errors: Record<string, number>;
  /** Lost and repeated seqs over the whole run, and subscribers that never saw the end. */
  seq: SeqCheck;
  /** Per session (in creation order): when the group's first subscriber saw its final status (µs on the shared clock), or null. */
  endSeenAt: (number | null)[];
  /** Per session: the last seq its least advanced subscriber of the group got. */
  lastSeqs: number[];
}

export interface FollowResult {
  kind: 'follow';
  sessionIds: string[];
  windowMs: number;
  groups: FollowGroupResult[];
  /** The sessions' last seqs as their subscribers saw them end (null: nobody saw the end). */
  finalSeqs: (number | null)[];
  /** Error frames the creators received (a refused create, cancel …), by code. */
  creatorErrors: Record<string, number>;
  setupMs: number;
}

export type LoadResult = StreamResult | IdleResult | CorrectionResult | ReplayResult | FollowResult;

/** Messages from the harness to the child; `id` ties a job to its answers. */
export type ToChild = { type: 'run'; id: number; job: LoadJob } | { type: 'continue'; id: number };

/** Messages from the child to the harness. `holding`: connections are open, measure now, then send `continue`. */
export type FromChild =
  | { type: 'holding'; id: number; connections: number }
  | { type: 'result'; id: number; result: LoadResult }
  | { type: 'failed'; id: number; message: string };
