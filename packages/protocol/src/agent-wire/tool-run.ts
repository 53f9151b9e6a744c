import { z } from 'zod';
import { RequestIdSchema } from '../common.js';
import { AGENT_FIELD_LIMITS } from './version.js';
import { RunIdSchema } from './run.js';

/**
 * `tool.run`: run one of the server's tools (built in or MCP) for the run. The server writes the
 * `tool_call` step and, once it ran, the `observation` step itself (PROTOCOL.md Part II §A6).
 */
export const ToolRunSchema = z.strictObject({
  type: z.literal('tool.run'),
  id: RequestIdSchema,
  runId: RunIdSchema,
  tool: z.string().min(1).max(AGENT_FIELD_LIMITS.toolNameMax),
  input: z.unknown(),
});

/** `tool.result`: the answer to `tool.run`. `ok: false` is the tool's own error, which its observation shows too. */
export const ToolRunResultSchema = z.looseObject({
  type: z.literal('tool.result'),
  requestId: RequestIdSchema,
  runId: RunIdSchema,
  tool: z.string(),
  ok: z.boolean(),
  /** The tool's structured output (when `ok`). */
  output: z.unknown().optional(),
  /** The observation's text. */
  text: z.string(),
  /** The tool's error (when not `ok`). */
  error: z.string().optional(),
  /** The session's step ids of the `tool_call` and `observation` steps the server wrote. */
  callStepId: z.string(),
  observationStepId: z.string(),
});

export type ToolRun = z.infer<typeof ToolRunSchema>;
export type ToolRunResult = z.infer<typeof ToolRunResultSchema>;
