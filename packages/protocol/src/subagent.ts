import { z } from 'zod';
import { IdSchema, answerBase, requestBase, sessionEventBase } from './common.js';
import { SessionUsageSchema } from './usage.js';

/*
 * Sub-agents (PROTOCOL.md §24, capability `subagents`): a `delegate` tool call starts a run with a
 * chain of its own, its *scope*, named by the call's step id. Steps the sub-agent writes carry
 * `Step.scope`; these frames open a scope, follow its status and cancel it.
 */

/** The tool whose calls start sub-agents (§24.1). */
export const DELEGATE_TOOL = 'delegate';

/** How deep sub-agents nest on the reference server, unless configured otherwise (`hello.limits.maxSubagentDepth`). */
export const DEFAULT_MAX_SUBAGENT_DEPTH = 3;

/** The input of a `delegate` call, as its step's content holds it (JSON). */
export const DelegateInputSchema = z.strictObject({
  /** What the sub-agent is asked to do. */
  task: z.string().min(1).max(20_000),
  /** Which agent runs it: one its parent offers as a sub-agent, or the parent's own agent when absent. */
  agent: z.string().min(1).max(64).optional(),
  /** A label for people, e.g. `part 1`; the agent's name when absent. */
  name: z.string().min(1).max(80).optional(),
});

/** Where a sub-agent is in its life (§24.3). */
export const SubagentStatusSchema = z.enum(['running', 'waiting', 'completed', 'failed', 'cancelled', 'interrupted']);

/** How a sub-agent ended, as its delegate call's observation `result` says (§24.1). */
export const DelegateResultSchema = z.looseObject({
  subagent: IdSchema,
  status: z.enum(['completed', 'failed', 'cancelled']),
  answer: z.string().optional(),
  error: z.string().optional(),
});

/** `subagent.started`: a delegate call's sub-agent begins, before its first step (§24.3). */
export const SubagentStartedEventSchema = z.looseObject({
  type: z.literal('subagent.started'),
  ...sessionEventBase,
  /** The delegate call: the sub-agent's scope. */
  scope: IdSchema,
  /** The scope the delegate call is in; absent for the session's own chain. */
  parentScope: IdSchema.optional(),
  depth: z.number().int().min(1),
  name: z.string(),
  agent: z.string(),
  task: z.string(),
});

/** `subagent.status`: a sub-agent's status changed (§24.3); the answer to `subagent.cancel` carries `requestId`. */
export const SubagentStatusEventSchema = z.looseObject({
  type: z.literal('subagent.status'),
  ...sessionEventBase,
  ...answerBase,
  scope: IdSchema,
  status: SubagentStatusSchema,
  error: z.string().optional(),
});

/** `subagent.cancel`: stop one running or waiting sub-agent; the parent goes on (§24.6). */
export const SubagentCancelRequestSchema = z.strictObject({
  type: z.literal('subagent.cancel'),
  ...requestBase,
  sessionId: IdSchema,
  scope: IdSchema,
});

/** One sub-agent as a snapshot carries it (`SessionSnapshot.subagents`, §24.3). */
export const SubagentInfoSchema = z.looseObject({
  scope: IdSchema,
  parentScope: IdSchema.optional(),
  depth: z.number().int().min(1),
  name: z.string(),
  agent: z.string(),
  task: z.string(),
  status: SubagentStatusSchema,
  error: z.string().optional(),
  /** The scope's chain, root first. */
  chain: z.array(IdSchema),
  /** Tokens and cost of the calls its steps produced, its own sub-agents' included. */
  usage: SessionUsageSchema.optional(),
});

export type DelegateInput = z.infer<typeof DelegateInputSchema>;
export type DelegateResult = z.infer<typeof DelegateResultSchema>;
export type SubagentStatus = z.infer<typeof SubagentStatusSchema>;
export type SubagentStartedEvent = z.infer<typeof SubagentStartedEventSchema>;
export type SubagentStatusEvent = z.infer<typeof SubagentStatusEventSchema>;
export type SubagentCancelRequest = z.infer<typeof SubagentCancelRequestSchema>;
export type SubagentInfo = z.infer<typeof SubagentInfoSchema>;
