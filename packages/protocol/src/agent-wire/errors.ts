import { z } from 'zod';
import { ErrorDetailSchema } from '../error.js';
import { RequestIdSchema } from '../common.js';

/** Every error code the server sends a worker (PROTOCOL.md Part II §A9). Codes are stable; messages may change. */
export const AGENT_ERROR_CODES = {
  /** The frame was not valid JSON, or was binary. */
  BAD_JSON: 'BAD_JSON',
  /** The frame was JSON but failed its schema; `details` lists each issue. */
  BAD_FRAME: 'BAD_FRAME',
  /** The frame's `type` is not a worker frame type. */
  UNKNOWN_TYPE: 'UNKNOWN_TYPE',
  /** The frame is over `hello.limits.maxFrameBytes`; it was dropped. */
  FRAME_TOO_LARGE: 'FRAME_TOO_LARGE',
  /** Over `hello.limits.framesPerSecond`; the frame was dropped. */
  RATE_LIMITED: 'RATE_LIMITED',
  /** `agent.register` of a name an in-process agent of the server holds. */
  NAME_TAKEN: 'NAME_TAKEN',
  /** Over a count limit: agents per worker. */
  LIMIT_EXCEEDED: 'LIMIT_EXCEEDED',
  /** A `runId` this worker was not given, or whose run is over. */
  UNKNOWN_RUN: 'UNKNOWN_RUN',
  /** A `ref` that no `step.start` of this run named. */
  UNKNOWN_STEP: 'UNKNOWN_STEP',
  /** A `step.start` whose `ref` this run already used. */
  DUPLICATE_REF: 'DUPLICATE_REF',
  /** A `step.delta` or `step.end` of a step that has ended (starting the next step ends the open one). */
  STEP_ENDED: 'STEP_ENDED',
  /** The delta would take the step over `hello.limits.maxStepChars`; it was dropped. */
  STEP_TOO_LARGE: 'STEP_TOO_LARGE',
  /** A `usage` report the server cannot record (refs of steps the call did not produce, bad numbers). */
  BAD_USAGE: 'BAD_USAGE',
  /** `tool.run` of a tool the server does not have. */
  TOOL_NOT_FOUND: 'TOOL_NOT_FOUND',
  /** `tool.run` input that fails the tool's schema; `details` lists each issue. */
  BAD_TOOL_INPUT: 'BAD_TOOL_INPUT',
  /** The run was aborted while the frame waited (a `tool.run` whose call now waits for approval gets this). */
  RUN_ABORTED: 'RUN_ABORTED',
  /** The worker kept sending after `flow { paused: true }` until the run's queue was full: the run is failed. */
  FLOW_EXCEEDED: 'FLOW_EXCEEDED',
  INTERNAL: 'INTERNAL',
} as const;

/** A stable UPPER_SNAKE error code of the agent wire. */
export type AgentErrorCode = (typeof AGENT_ERROR_CODES)[keyof typeof AGENT_ERROR_CODES];

/** `error`: a worker frame could not be carried out. It never ends another run, nor the connection. */
export const AgentErrorFrameSchema = z.looseObject({
  type: z.literal('error'),
  /** The `id` of the request it answers (`agent.register`, `tool.run`). */
  requestId: RequestIdSchema.optional(),
  /** The run the refused frame named, when it named one. */
  runId: z.string().optional(),
  /** The step `ref` the refused frame named, when it named one. */
  ref: z.string().optional(),
  code: z.string(),
  message: z.string(),
  details: z.array(ErrorDetailSchema).optional(),
});

export type AgentErrorFrame = z.infer<typeof AgentErrorFrameSchema>;
