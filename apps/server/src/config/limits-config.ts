import { z } from 'zod';
import { ConfigError } from './config-error.js';
import { integer, parseEnv, positiveNumber, type Env } from './env-values.js';

/** What one client, one address, one user and the whole server may take: frames, rates, sessions, buffers. */
export interface LimitsConfig {
  maxFrameBytes: number;
  ratePerSec: number;
  rateBurst: number;
  maxSessionsPerConnection: number;
  /** Active sessions on the whole server. */
  maxSessions: number;
  maxSubscriptionsPerConnection: number;
  /** WebSockets open at once from one client address (INTERTHOUGHT_MAX_CONNECTIONS_PER_ADDRESS, default 64). */
  maxConnectionsPerAddress: number;
  /**
   * Running or paused sessions started from one client address (INTERTHOUGHT_MAX_ACTIVE_SESSIONS_PER_ADDRESS,
   * default 100): no one address can take every slot of `maxSessions`, whatever it reconnects.
   */
  maxActiveSessionsPerAddress: number;
  /**
   * Agent runs (session.create, a correction, session.resume) one address may start per minute
   * (INTERTHOUGHT_RUN_STARTS_PER_MINUTE_PER_ADDRESS, default 120), and the whole server
   * (INTERTHOUGHT_RUN_STARTS_PER_MINUTE, default 2400): what one client can make the server compute.
   */
  runStartsPerMinutePerAddress: number;
  runStartsPerMinute: number;
  /**
   * A signed-in user's own caps, in place of their address's (INTERTHOUGHT_MAX_ACTIVE_SESSIONS_PER_USER,
   * default 20; INTERTHOUGHT_RUN_STARTS_PER_MINUTE_PER_USER, default 60): behind a proxy every user
   * has the proxy's address, so users are counted as themselves (PROTOCOL.md §21.2).
   */
  maxActiveSessionsPerUser: number;
  runStartsPerMinutePerUser: number;
  /** A run paused this long gives its slot back: it is stopped and marked interrupted, resumable (INTERTHOUGHT_PAUSED_RUN_TTL_MS, default 15 min). */
  pausedRunTtlMs: number;
  /** How often each WebSocket is pinged; a peer that missed the previous pong is dropped. */
  heartbeatMs: number;
  /**
   * Backpressure soft cap, in bytes (INTERTHOUGHT_SOFT_BUFFER_BYTES, default 256 KiB). While a
   * socket's `bufferedAmount` is below it, frames go straight out; above it the connection's
   * `step.delta` frames are coalesced per step (one frame with `fromSeq`…`seq`) in a small queue
   * that is flushed, in order, as the socket drains.
   */
  softBufferBytes: number;
  /**
   * Backpressure hard cap, in bytes (INTERTHOUGHT_HARD_BUFFER_BYTES, default 1 MiB; above the soft
   * cap). When the live events waiting (`bufferedAmount` plus the queue's bytes, less the answers,
   * snapshots and replays still draining, which `burstBudgetBytes` bounds) exceed it, the
   * connection is closed with 4008 "slow consumer"; the client resumes with `afterSeq` and loses nothing.
   */
  hardBufferBytes: number;
  /**
   * Per-connection burst budget, in bytes (INTERTHOUGHT_BURST_BUDGET_BYTES, default 16 MiB):
   * answers, snapshots and replays a client has not read yet when it asks for more. Past it the
   * connection is closed with 4008; the request being answered is never counted, so a replay of
   * any size reaches a reader that reads it.
   */
  burstBudgetBytes: number;
}

/** A limit out of its range, or two limits that contradict each other. */
export class LimitsConfigError extends ConfigError {
  override readonly name = 'LimitsConfigError';
}

export const LimitsEnvSchema = z.object({
  INTERTHOUGHT_MAX_FRAME_BYTES: integer(65_536, 1_024, 16 * 1024 * 1024),
  INTERTHOUGHT_RATE_PER_SEC: positiveNumber(20, 100_000),
  INTERTHOUGHT_RATE_BURST: integer(40, 1, 100_000),
  INTERTHOUGHT_MAX_SESSIONS_PER_CONNECTION: integer(20, 1, 100_000),
  INTERTHOUGHT_MAX_SESSIONS: integer(1_000, 1, 1_000_000),
  INTERTHOUGHT_MAX_SUBSCRIPTIONS_PER_CONNECTION: integer(50, 1, 100_000),
  INTERTHOUGHT_MAX_CONNECTIONS_PER_ADDRESS: integer(64, 1, 10_000_000),
  INTERTHOUGHT_MAX_ACTIVE_SESSIONS_PER_ADDRESS: integer(100, 1, 10_000_000),
  INTERTHOUGHT_RUN_STARTS_PER_MINUTE_PER_ADDRESS: integer(120, 1, 100_000_000),
  INTERTHOUGHT_RUN_STARTS_PER_MINUTE: integer(2_400, 1, 100_000_000),
  INTERTHOUGHT_MAX_ACTIVE_SESSIONS_PER_USER: integer(20, 1, 10_000_000),
  INTERTHOUGHT_RUN_STARTS_PER_MINUTE_PER_USER: integer(60, 1, 100_000_000),
  INTERTHOUGHT_PAUSED_RUN_TTL_MS: integer(15 * 60_000, 1_000, 7 * 24 * 3_600_000),
  INTERTHOUGHT_HEARTBEAT_MS: integer(30_000, 10, 3_600_000),
  INTERTHOUGHT_SOFT_BUFFER_BYTES: integer(256 * 1024, 1_024, 1024 * 1024 * 1024),
  INTERTHOUGHT_HARD_BUFFER_BYTES: integer(1024 * 1024, 2_048, 4 * 1024 * 1024 * 1024),
  INTERTHOUGHT_BURST_BUDGET_BYTES: integer(16 * 1024 * 1024, 1_024, 4 * 1024 * 1024 * 1024),
});

export type LimitsEnv = z.infer<typeof LimitsEnvSchema>;

/** The limits, checked together. Throws a `LimitsConfigError` when the hard buffer cap is not above the soft one. */
export function limitsConfigOf(vars: LimitsEnv): LimitsConfig {
  if (vars.INTERTHOUGHT_HARD_BUFFER_BYTES <= vars.INTERTHOUGHT_SOFT_BUFFER_BYTES) {
    throw new LimitsConfigError([
      {
        variable: 'INTERTHOUGHT_HARD_BUFFER_BYTES',
        problem: `must be above INTERTHOUGHT_SOFT_BUFFER_BYTES (${vars.INTERTHOUGHT_SOFT_BUFFER_BYTES}), got ${vars.INTERTHOUGHT_HARD_BUFFER_BYTES}`,
      },
    ]);
  }
  return {
    maxFrameBytes: vars.INTERTHOUGHT_MAX_FRAME_BYTES,
    ratePerSec: vars.INTERTHOUGHT_RATE_PER_SEC,
    rateBurst: vars.INTERTHOUGHT_RATE_BURST,
    maxSessionsPerConnection: vars.INTERTHOUGHT_MAX_SESSIONS_PER_CONNECTION,
    maxSessions: vars.INTERTHOUGHT_MAX_SESSIONS,
    maxSubscriptionsPerConnection: vars.INTERTHOUGHT_MAX_SUBSCRIPTIONS_PER_CONNECTION,
    maxConnectionsPerAddress: vars.INTERTHOUGHT_MAX_CONNECTIONS_PER_ADDRESS,
    maxActiveSessionsPerAddress: vars.INTERTHOUGHT_MAX_ACTIVE_SESSIONS_PER_ADDRESS,
    runStartsPerMinutePerAddress: vars.INTERTHOUGHT_RUN_STARTS_PER_MINUTE_PER_ADDRESS,
    runStartsPerMinute: vars.INTERTHOUGHT_RUN_STARTS_PER_MINUTE,
    maxActiveSessionsPerUser: vars.INTERTHOUGHT_MAX_ACTIVE_SESSIONS_PER_USER,
    runStartsPerMinutePerUser: vars.INTERTHOUGHT_RUN_STARTS_PER_MINUTE_PER_USER,
    pausedRunTtlMs: vars.INTERTHOUGHT_PAUSED_RUN_TTL_MS,
    heartbeatMs: vars.INTERTHOUGHT_HEARTBEAT_MS,
    softBufferBytes: vars.INTERTHOUGHT_SOFT_BUFFER_BYTES,
    hardBufferBytes: vars.INTERTHOUGHT_HARD_BUFFER_BYTES,
    burstBudgetBytes: vars.INTERTHOUGHT_BURST_BUDGET_BYTES,
  };
}

/** The limits alone. Throws a `LimitsConfigError` naming every bad one. */
export function readLimitsConfig(env: Env): LimitsConfig {
  return limitsConfigOf(parseEnv(LimitsEnvSchema, env, LimitsConfigError));
}
