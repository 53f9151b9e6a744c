/** How big a chaos run is: `default` for `pnpm chaos`, `smoke` for CI (seconds). */
export type ChaosMode = 'default' | 'smoke';

/** A firehose stream: deltas per second, for how long, and deltas per `thought` step. */
export interface StreamShape {
  rate: number;
  durationMs: number;
  perStep: number;
}

export interface ClientKillScale {
  sessions: number;
  followersPerSession: number;
  stream: StreamShape;
  /** A follower dies after 0 … this many events of each connection. */
  maxEventsBeforeKill: number;
  /** Kills the phase must reach; waves of new sessions start until it has (or time is up). */
  minKills: number;
  maxWaves: number;
  /** Chance that a connection stops reading for a while (the server then coalesces, or closes it 4008). */
  stallChance: number;
  maxStallMs: number;
  timeLimitMs: number;
}

export interface ServerRestartScale {
  restarts: number;
  /** Sessions started before the first kill, and more at every restart. */
  initialSessions: number;
  sessionsPerRestart: number;
  followersPerSession: number;
  stream: StreamShape;
  /** The server streams this long (random within the range) between a restart and the next kill. */
  streamBeforeKillMs: [number, number];
  timeLimitMs: number;
}

export interface HostileScale {
  /** Connections that send hostile frames one at a time, paced under the rate limit. */
  connections: number;
  framesPerConnection: number;
  /** Connections that send a burst far beyond the rate limit (they must end in 1008). */
  burstConnections: number;
  burstFrames: number;
  /** The bystander's stream, and demo sessions it runs one after another meanwhile. */
  bystander: StreamShape;
  demoSessions: number;
  timeLimitMs: number;
}

export interface ChaosScale {
  clientKills: ClientKillScale;
  serverRestarts: ServerRestartScale;
  workerKills: WorkerKillScale;
  hostile: HostileScale;
  stallProbeIntervalMs: number;
}

/** Firehose sessions served by worker processes over /ws/agents, killed with SIGKILL at random moments. */
export interface WorkerKillScale {
  workers: number;
  sessions: number;
  followersPerSession: number;
  stream: StreamShape;
  kills: number;
  /** Milliseconds between kills (a random value in the range). */
  gapMs: [number, number];
  timeLimitMs: number;
}

export const SCALES: Record<ChaosMode, ChaosScale> = {
  smoke: {
    clientKills: {
      sessions: 2,
      followersPerSession: 2,
      stream: { rate: 200, durationMs: 1_500, perStep: 100 },
      maxEventsBeforeKill: 60,
      minKills: 5,
      maxWaves: 1,
      stallChance: 0.1,
      maxStallMs: 200,
      timeLimitMs: 15_000,
    },
    workerKills: { workers: 2, sessions: 3, followersPerSession: 2, stream: { rate: 200, durationMs: 2_000, perStep: 50 }, kills: 2, gapMs: [300, 700], timeLimitMs: 30_000 },
    serverRestarts: {
      restarts: 2,
      initialSessions: 2,
      sessionsPerRestart: 1,
      followersPerSession: 2,
      stream: { rate: 200, durationMs: 3_000, perStep: 50 },
      streamBeforeKillMs: [300, 700],
      timeLimitMs: 20_000,
    },
    hostile: {
      connections: 6,
      framesPerConnection: 12,
      burstConnections: 1,
      burstFrames: 120,
      bystander: { rate: 200, durationMs: 1_500, perStep: 100 },
      demoSessions: 1,
      timeLimitMs: 15_000,
    },
    stallProbeIntervalMs: 50,
  },
  default: {
    clientKills: {
      sessions: 12,
      followersPerSession: 4,
      stream: { rate: 300, durationMs: 12_000, perStep: 200 },
      maxEventsBeforeKill: 250,
      minKills: 1_000,
      maxWaves: 3,
      stallChance: 0.05,
      maxStallMs: 800,
      timeLimitMs: 70_000,
    },
    workerKills: { workers: 3, sessions: 8, followersPerSession: 3, stream: { rate: 300, durationMs: 6_000, perStep: 100 }, kills: 8, gapMs: [400, 1_500], timeLimitMs: 90_000 },
    serverRestarts: {
      restarts: 5,
      initialSessions: 6,
      sessionsPerRestart: 2,
      followersPerSession: 3,
      stream: { rate: 300, durationMs: 9_000, perStep: 100 },
      streamBeforeKillMs: [600, 2_000],
      timeLimitMs: 60_000,
    },
    hostile: {
      connections: 60,
      framesPerConnection: 40,
      burstConnections: 6,
      burstFrames: 200,
      bystander: { rate: 300, durationMs: 6_000, perStep: 200 },
      demoSessions: 4,
      timeLimitMs: 40_000,
    },
    stallProbeIntervalMs: 50,
  },
};
