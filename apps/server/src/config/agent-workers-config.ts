import { z } from 'zod';
import { integer, positiveNumber } from './env-values.js';

/**
 * Agent workers on `/ws/agents` (PROTOCOL.md Part II §A8): who may connect and the limits each
 * worker connection is held to. Without tokens the endpoint does not exist.
 */
export interface AgentWorkersConfig {
  /** INTERTHOUGHT_AGENT_TOKENS, comma-separated. Undefined: no `/ws/agents` (404). */
  agentTokens: readonly string[] | undefined;
  agentMaxFrameBytes: number;
  agentMaxStepChars: number;
  agentMaxRunsPerWorker: number;
  agentFramesPerSecond: number;
  agentFrameBurst: number;
  agentMaxQueuedFrames: number;
  agentHeartbeatMs: number;
}

const tokenList = z
  .string()
  .optional()
  .transform((raw): readonly string[] | undefined => {
    const tokens = (raw ?? '').split(',').map((token) => token.trim()).filter(Boolean);
    return tokens.length === 0 ? undefined : tokens;
  });

export const AgentWorkersEnvSchema = z.object({
  INTERTHOUGHT_AGENT_TOKENS: tokenList,
  INTERTHOUGHT_AGENT_MAX_FRAME_BYTES: integer(65_536, 1_024, 16 * 1024 * 1024),
  INTERTHOUGHT_AGENT_MAX_STEP_CHARS: integer(100_000, 100, 10_000_000),
  INTERTHOUGHT_AGENT_MAX_RUNS_PER_WORKER: integer(16, 1, 10_000),
  INTERTHOUGHT_AGENT_FRAMES_PER_SEC: positiveNumber(2_000, 1_000_000),
  INTERTHOUGHT_AGENT_FRAME_BURST: integer(4_000, 1, 1_000_000),
  INTERTHOUGHT_AGENT_MAX_QUEUED_FRAMES: integer(1_000, 8, 1_000_000),
  INTERTHOUGHT_AGENT_HEARTBEAT_MS: integer(1_000, 10, 3_600_000),
});

export type AgentWorkersEnv = z.infer<typeof AgentWorkersEnvSchema>;

export function agentWorkersConfigOf(vars: AgentWorkersEnv): AgentWorkersConfig {
  return {
    agentTokens: vars.INTERTHOUGHT_AGENT_TOKENS,
    agentMaxFrameBytes: vars.INTERTHOUGHT_AGENT_MAX_FRAME_BYTES,
    agentMaxStepChars: vars.INTERTHOUGHT_AGENT_MAX_STEP_CHARS,
    agentMaxRunsPerWorker: vars.INTERTHOUGHT_AGENT_MAX_RUNS_PER_WORKER,
    agentFramesPerSecond: vars.INTERTHOUGHT_AGENT_FRAMES_PER_SEC,
    agentFrameBurst: vars.INTERTHOUGHT_AGENT_FRAME_BURST,
    agentMaxQueuedFrames: vars.INTERTHOUGHT_AGENT_MAX_QUEUED_FRAMES,
    agentHeartbeatMs: vars.INTERTHOUGHT_AGENT_HEARTBEAT_MS,
  };
}
