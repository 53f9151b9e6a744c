import { z } from 'zod';
import { IdSchema, TimestampSchema, sessionEventBase } from './common.js';
import { globMatches } from './glob.js';
import { AgentStepKindSchema } from './step-kind.js';

/*
 * Breakpoints (capability `breakpoints`, PROTOCOL.md §25.5): the run stops at a step the agent has
 * just written, before anything acts on it, and `session.resume` goes on from there.
 */

export const BREAKPOINT_LIMITS = { max: 32, toolGlobMax: 200 } as const;

/** One breakpoint: steps of `kind` (any agent kind) whose tool matches the glob `tool`; `{}` matches every step. */
export const BreakpointSchema = z.strictObject({
  kind: AgentStepKindSchema.optional(),
  tool: z.string().min(1).max(BREAKPOINT_LIMITS.toolGlobMax).optional(),
});

/** `options.breakpoints`: `"all"` (step-by-step mode) or a list of breakpoints. */
export const BreakpointsSchema = z.union([z.literal('all'), z.array(BreakpointSchema).min(1).max(BREAKPOINT_LIMITS.max)]);

/** The mark a step carries once a breakpoint stopped the run at it. */
export const StepBreakpointSchema = z.looseObject({
  at: TimestampSchema,
  kind: z.string().optional(),
  tool: z.string().optional(),
  index: z.number().int().min(0).optional(),
});

/** `breakpoint.hit`: a breakpoint stopped the run at a step; `session.status` `paused` follows. */
export const BreakpointHitEventSchema = z.looseObject({
  type: z.literal('breakpoint.hit'),
  ...sessionEventBase,
  stepId: IdSchema,
  breakpoint: z.looseObject({ kind: z.string().optional(), tool: z.string().optional() }),
  index: z.number().int().min(0).optional(),
});

/** The breakpoint that matched a step and its place in the list (none under `"all"`). */
export interface BreakpointMatch {
  breakpoint: Breakpoint;
  index?: number;
}

/**
 * The first breakpoint of `breakpoints` that matches a step of `kind` (and `tool`), or undefined.
 * Only for the steps a run writes: the caller leaves out user messages, the server's own steps and
 * calls that stop anyway (PROTOCOL.md §25.5).
 */
export function matchBreakpoint(breakpoints: Breakpoints | undefined, kind: string, tool: string | undefined): BreakpointMatch | undefined {
  if (breakpoints === undefined || kind === 'user_message') return undefined;
  if (breakpoints === 'all') return { breakpoint: {} };
  const index = breakpoints.findIndex(
    (breakpoint) => (breakpoint.kind === undefined || breakpoint.kind === kind) && (breakpoint.tool === undefined || (tool !== undefined && globMatches(breakpoint.tool, tool))),
  );
  return index === -1 ? undefined : { breakpoint: breakpoints[index]!, index };
}

const KIND_WORDS: Record<string, string> = { thought: 'a thought', action: 'an action', tool_call: 'a tool call', observation: 'an observation', final_answer: 'the final answer' };

/** The `session.status` detail of a stop at a breakpoint: before a call's tool runs, or after any other step. */
export function breakpointDetail(kind: string, tool: string | undefined): string {
  if (kind === 'tool_call') return `Stopped at a breakpoint: before ${tool ?? 'the tool'} runs`;
  return `Stopped at a breakpoint: after ${KIND_WORDS[kind] ?? kind}`;
}

export type Breakpoint = z.infer<typeof BreakpointSchema>;
export type Breakpoints = z.infer<typeof BreakpointsSchema>;
export type StepBreakpoint = z.infer<typeof StepBreakpointSchema>;
export type BreakpointHitEvent = z.infer<typeof BreakpointHitEventSchema>;
