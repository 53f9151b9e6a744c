import { z } from 'zod';
import { IdSchema, TimestampSchema, requestBase, sessionEventBase } from './common.js';
import { globMatches } from './glob.js';
import { ASK_USER_TOOL } from './question.js';

/*
 * Approvals given once and rules (capability `approval-rules`, PROTOCOL.md §25.3–§25.4): which
 * calls run, wait or are refused without asking, decided by one evaluator both the server and the
 * web app's rule editor use.
 */

export const APPROVAL_RULE_LIMITS = { rulesMax: 64, whenMax: 16, globMax: 200, pathMax: 200, oneOfMax: 64, stringMax: 2_000 } as const;

/** One test of a `when` condition; all the tests given must hold. */
export const RuleConditionSchema = z
  .strictObject({
    equals: z.unknown().optional(),
    oneOf: z.array(z.unknown()).min(1).max(APPROVAL_RULE_LIMITS.oneOfMax).optional(),
    startsWith: z.string().max(APPROVAL_RULE_LIMITS.stringMax).optional(),
    under: z.string().min(1).max(APPROVAL_RULE_LIMITS.stringMax).optional(),
    glob: z.string().min(1).max(APPROVAL_RULE_LIMITS.globMax).optional(),
    min: z.number().optional(),
    max: z.number().optional(),
    exists: z.boolean().optional(),
  })
  .refine((condition) => Object.keys(condition).length > 0, 'a condition needs at least one test');

/** What a rule does with the calls it matches. */
export const RuleDecisionSchema = z.enum(['allow', 'ask', 'deny']);

/** A rule: the tool (a glob), the decision, and conditions on the call's arguments. */
export const ApprovalRuleSchema = z.strictObject({
  tool: z.string().min(1).max(APPROVAL_RULE_LIMITS.globMax),
  decision: RuleDecisionSchema,
  when: z
    .record(z.string().min(1).max(APPROVAL_RULE_LIMITS.pathMax), RuleConditionSchema)
    .refine((when) => Object.keys(when).length >= 1 && Object.keys(when).length <= APPROVAL_RULE_LIMITS.whenMax, `when takes 1–${APPROVAL_RULE_LIMITS.whenMax} conditions`)
    .optional(),
});

/** `options.approve` as rules: the first rule that matches decides, else `default`. */
export const ApprovalRulesSchema = z.strictObject({
  rules: z.array(ApprovalRuleSchema).min(1).max(APPROVAL_RULE_LIMITS.rulesMax),
  /** What a call no rule matches does; absent: as without a policy (a tool that changes something asks). */
  default: z.enum(['ask', 'allow']).optional(),
});

/** An approval given with `remember: "session"`, kept for later calls of its tool. */
export const RememberedApprovalSchema = z.looseObject({
  tool: z.string(),
  by: z.string(),
  byName: z.string().optional(),
  at: TimestampSchema,
  /** The call it was given on. */
  stepId: IdSchema,
});

/** `approvals.forget`: take back the remembered approval of `tool`, or all of them. */
export const ApprovalsForgetRequestSchema = z.strictObject({
  type: z.literal('approvals.forget'),
  ...requestBase,
  sessionId: IdSchema,
  tool: z.string().min(1).max(64).optional(),
});

/** `approvals.forgotten`: remembered approvals were taken back; the requester's copy answers `approvals.forget`. */
export const ApprovalsForgottenEventSchema = z.looseObject({
  type: z.literal('approvals.forgotten'),
  ...sessionEventBase,
  requestId: z.string().optional(),
  tools: z.array(z.string()),
  by: z.string(),
  byName: z.string().optional(),
});

/** What the rules decided for a call, and the index of the rule that did (absent: the default). */
export interface RuleVerdict {
  decision: 'allow' | 'ask' | 'deny';
  rule?: number;
}

/** The argument at a dotted path of the input (`"options.force"`, `"files.0"`), or undefined. */
function argumentAt(input: unknown, path: string): unknown {
  let value: unknown = input;
  for (const segment of path.split('.')) {
    if (Array.isArray(value)) value = /^\d+$/.test(segment) ? value[Number(segment)] : undefined;
    else if (typeof value === 'object' && value !== null && Object.hasOwn(value, segment)) value = (value as Record<string, unknown>)[segment];
    else return undefined;
  }
  return value;
}

function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) return a.length === (b as unknown[]).length && a.every((item, i) => jsonEqual(item, (b as unknown[])[i]));
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  return ka.length === kb.length && ka.every((key) => Object.hasOwn(b, key) && jsonEqual((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]));
}

/** A `/`-separated path with `.` and `..` resolved and repeated `/` collapsed, as segments; whether it was absolute. */
function pathSegments(path: string): { absolute: boolean; segments: string[] } {
  const segments: string[] = [];
  for (const part of path.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') segments.pop();
    else segments.push(part);
  }
  return { absolute: path.startsWith('/'), segments };
}

/** Whether `path` is `base` or lies beneath it, segment by segment, once both are normalised. */
export function isPathUnder(path: string, base: string): boolean {
  const p = pathSegments(path);
  const b = pathSegments(base);
  if (p.absolute !== b.absolute || p.segments.length < b.segments.length) return false;
  return b.segments.every((segment, i) => p.segments[i] === segment);
}

function conditionHolds(condition: RuleCondition, value: unknown): boolean {
  if (condition.exists !== undefined && condition.exists !== (value !== undefined)) return false;
  if (value === undefined) return condition.exists === false && Object.keys(condition).length === 1;
  if (condition.equals !== undefined && !jsonEqual(value, condition.equals)) return false;
  if (condition.oneOf !== undefined && !condition.oneOf.some((option) => jsonEqual(value, option))) return false;
  const stringTests = condition.startsWith !== undefined || condition.under !== undefined || condition.glob !== undefined;
  if (stringTests && typeof value !== 'string') return false;
  if (condition.startsWith !== undefined && !(value as string).startsWith(condition.startsWith)) return false;
  if (condition.under !== undefined && !isPathUnder(value as string, condition.under)) return false;
  if (condition.glob !== undefined && !globMatches(condition.glob, value as string)) return false;
  const numberTests = condition.min !== undefined || condition.max !== undefined;
  if (numberTests && (typeof value !== 'number' || !Number.isFinite(value))) return false;
  if (condition.min !== undefined && (value as number) < condition.min) return false;
  if (condition.max !== undefined && (value as number) > condition.max) return false;
  return true;
}

/** Whether `rule` matches a call of `tool` with `input` (the call's content parsed; anything else when it is not JSON). */
export function ruleMatches(rule: ApprovalRule, tool: string, input: unknown): boolean {
  if (!globMatches(rule.tool, tool)) return false;
  if (rule.when === undefined) return true;
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return false;
  return Object.entries(rule.when).every(([path, condition]) => conditionHolds(condition, argumentAt(input, path)));
}

/**
 * What the rules decide for a call of `tool` with `input` (PROTOCOL.md §25.4): the first rule that
 * matches, else the default (`undefined` when the rules leave it to the tool's own declaration).
 * `ask_user` is never matched.
 */
export function evaluateApprovalRules(rules: ApprovalRules, tool: string, input: unknown): RuleVerdict | undefined {
  if (tool === ASK_USER_TOOL) return { decision: 'allow' };
  const index = rules.rules.findIndex((rule) => ruleMatches(rule, tool, input));
  if (index !== -1) return { decision: rules.rules[index]!.decision, rule: index };
  return rules.default === undefined ? undefined : { decision: rules.default };
}

/** A rule as people read it in a refusal: `write_file: deny`, with its conditions' paths. */
export function describeRule(rule: ApprovalRule): string {
  const when = rule.when === undefined ? '' : ` when ${Object.keys(rule.when).join(', ')}`;
  return `${rule.tool}: ${rule.decision}${when}`;
}

export type RuleCondition = z.infer<typeof RuleConditionSchema>;
export type RuleDecision = z.infer<typeof RuleDecisionSchema>;
export type ApprovalRule = z.infer<typeof ApprovalRuleSchema>;
export type ApprovalRules = z.infer<typeof ApprovalRulesSchema>;
export type RememberedApproval = z.infer<typeof RememberedApprovalSchema>;
export type ApprovalsForgetRequest = z.infer<typeof ApprovalsForgetRequestSchema>;
export type ApprovalsForgottenEvent = z.infer<typeof ApprovalsForgottenEventSchema>;
