import { z } from 'zod';
import { FIELD_LIMITS } from './limits.js';
import { IdSchema, TimestampSchema, requestBase, sessionEventBase } from './common.js';
import { ApprovalRulesSchema, evaluateApprovalRules, type RuleVerdict } from './approval-rules.js';

/*
 * Approval before a tool runs (capability `approvals`, PROTOCOL.md §17): a completed `tool_call`
 * step that the session's policy names waits for the user, who approves it, edits it (a
 * `step.correct` of the pending call) or rejects it. The decision stays on the step.
 */

/** A tool name as a policy lists it. */
const ToolNameSchema = z.string().min(1).max(64);

/**
 * Which tool calls wait for the user: `"all"`, `"none"`, the names of the tools that wait, or rules
 * that allow, ask or deny by tool and arguments (PROTOCOL.md §25.4). Without one, the server's
 * default applies (`INTERTHOUGHT_APPROVE`, else: a tool that changes something waits, one that
 * only reads does not).
 */
export const ApprovalPolicySchema = z.union([z.enum(['all', 'none']), z.array(ToolNameSchema).min(1).max(64), ApprovalRulesSchema]);

/**
 * What the policy does with a call of `tool` with `input` (its content parsed): `allow`, `ask` or
 * `deny`, and the rule that decided. `changes` is the tool's own declaration (a tool that changes
 * something asks when nothing else decides; unknown: it does not). One evaluator for every
 * policy shape, the server's and the web app's (PROTOCOL.md §19.1, §25.4).
 */
export function policyVerdict(policy: ApprovalPolicy | undefined, tool: string, input: unknown, changes: boolean): RuleVerdict {
  if (policy === 'all') return { decision: 'ask' };
  if (policy === 'none') return { decision: 'allow' };
  if (Array.isArray(policy)) return { decision: policy.includes(tool) ? 'ask' : 'allow' };
  const ruled = policy === undefined ? undefined : evaluateApprovalRules(policy, tool, input);
  return ruled ?? { decision: changes ? 'ask' : 'allow' };
}

/** How long a pending approval may wait before the server rejects it with the reason "timed out". */
export const APPROVAL_TIMEOUT_LIMITS = { minMs: 1_000, maxMs: 7 * 24 * 60 * 60_000 } as const;

/** Where a step's approval stands: waiting, or how the user decided. */
export const ApprovalStateSchema = z.enum(['pending', 'approved', 'rejected', 'edited']);

/** The decisions a user (or the timeout) makes on a pending tool call. */
export const ApprovalDecisionSchema = z.enum(['approved', 'rejected', 'edited']);

/** The approval a `tool_call` step carries once one was requested: the trail of who decided what, when. */
export const StepApprovalSchema = z.looseObject({
  state: ApprovalStateSchema,
  /** When the step started waiting. */
  requestedAt: TimestampSchema.optional(),
  /** Who decided: a user id (or a connection id when the server does not tell users apart), or `server` for a timeout. */
  by: z.string().optional(),
  /** The decider's display name, when known (additive, capability `users`). */
  byName: z.string().optional(),
  /** When it was decided. */
  at: TimestampSchema.optional(),
  /** Why it was rejected, when a reason was given. */
  reason: z.string().optional(),
  /** A decision nobody made at the call: a remembered approval, or a rule of the session's policy (PROTOCOL.md §25.3, §25.4). */
  via: z.enum(['remembered', 'rule']).optional(),
  /** The index of the rule that decided, with `via: "rule"`. */
  rule: z.number().int().min(0).optional(),
  /** The call the remembered approval was given on, with `via: "remembered"`. */
  from: IdSchema.optional(),
});

/** `approval.requested`: a completed tool call waits for the user; nothing runs until a decision. */
export const ApprovalRequestedEventSchema = z.looseObject({
  type: z.literal('approval.requested'),
  ...sessionEventBase,
  stepId: IdSchema,
  tool: z.string(),
  /** The call's input as proposed (its JSON content, parsed; the raw text if it is not JSON). */
  input: z.unknown(),
});

/**
 * `approval.resolved`: the decision on a pending tool call. The requester's copy carries
 * `requestId` and is the answer to `tool.approve` / `tool.reject`.
 */
export const ApprovalResolvedEventSchema = z.looseObject({
  type: z.literal('approval.resolved'),
  ...sessionEventBase,
  requestId: z.string().optional(),
  stepId: IdSchema,
  decision: ApprovalDecisionSchema,
  by: z.string(),
  byName: z.string().optional(),
  reason: z.string().optional(),
  /** The approval also holds for later calls of the tool in this session (PROTOCOL.md §25.3). */
  remember: z.literal('session').optional(),
});

/** `tool.approve`: run the pending tool call as proposed; with `remember`, later calls of the tool too. */
export const ToolApproveRequestSchema = z.strictObject({
  type: z.literal('tool.approve'),
  ...requestBase,
  sessionId: IdSchema,
  stepId: IdSchema,
  remember: z.literal('session').optional(),
});

/** `tool.reject`: do not run the pending tool call; the agent goes on knowing it was refused. */
export const ToolRejectRequestSchema = z.strictObject({
  type: z.literal('tool.reject'),
  ...requestBase,
  sessionId: IdSchema,
  stepId: IdSchema,
  reason: z.string().max(FIELD_LIMITS.noteMax).optional(),
});

/** The structured `result` of the observation that records a refusal. */
export interface RefusalResult {
  refused: true;
  by: string;
  reason?: string;
  /** The index of the rule that refused it (`by: "policy"`, PROTOCOL.md §25.4). */
  rule?: number;
}

/** Who decides a call a rule allowed or refused. */
export const POLICY_DECIDER = 'policy';

/** Whether an observation's `result` records a refused tool call (see `RefusalResult`). */
export function isRefusalResult(result: unknown): result is RefusalResult {
  return typeof result === 'object' && result !== null && (result as { refused?: unknown }).refused === true;
}

export type ApprovalPolicy = z.infer<typeof ApprovalPolicySchema>;
export type ApprovalState = z.infer<typeof ApprovalStateSchema>;
export type ApprovalDecision = z.infer<typeof ApprovalDecisionSchema>;
export type StepApproval = z.infer<typeof StepApprovalSchema>;
export type ApprovalRequestedEvent = z.infer<typeof ApprovalRequestedEventSchema>;
export type ApprovalResolvedEvent = z.infer<typeof ApprovalResolvedEventSchema>;
export type ToolApproveRequest = z.infer<typeof ToolApproveRequestSchema>;
export type ToolRejectRequest = z.infer<typeof ToolRejectRequestSchema>;
