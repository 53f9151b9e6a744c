import { z } from 'zod';

/** The limits a worker connection is held to (PROTOCOL.md Part II §A8); a server may change them between versions. */
export const AgentLimitsSchema = z.looseObject({
  /** Bytes of one frame (UTF-8); a larger one is refused with FRAME_TOO_LARGE. */
  maxFrameBytes: z.number().int(),
  /** Characters one step may hold; a delta that would pass it is refused with STEP_TOO_LARGE. */
  maxStepChars: z.number().int(),
  /** Runs the server gives one worker at once. */
  maxRunsPerWorker: z.number().int(),
  /** Agent names one worker may serve. */
  maxAgentsPerWorker: z.number().int(),
  /** Sustained frames per second; over it frames are refused with RATE_LIMITED. */
  framesPerSecond: z.number(),
  /** Frames allowed in a burst. */
  frameBurst: z.number().int(),
  /** Frames of one run the server holds while the run waits (pacing, pause, backlog); past it the run fails with FLOW_EXCEEDED. */
  maxQueuedFramesPerRun: z.number().int(),
  /** The server pings every this many ms; a worker that has not answered the previous ping is dropped. */
  heartbeatMs: z.number().int(),
});

/** `hello`: the first frame on every worker connection, sent by the server. */
export const AgentHelloSchema = z.looseObject({
  type: z.literal('hello'),
  /** `interthought-agent/1`. */
  protocol: z.string(),
  serverVersion: z.string(),
  /** This connection's id, as the server's logs name it. */
  workerId: z.string(),
  limits: AgentLimitsSchema,
});

export type AgentLimits = z.infer<typeof AgentLimitsSchema>;
export type AgentHello = z.infer<typeof AgentHelloSchema>;
