import { z } from 'zod';
import { ApprovalPolicySchema, ApprovalRulesSchema, DEFAULT_MAX_SUBAGENT_DEPTH, type ApprovalPolicy } from '@interthought/protocol';
import type { PriceTable } from '../core/run/model-prices.js';
import { ConfigError } from './config-error.js';
import { integer, optionalInteger, parseEnv, shown, type Env } from './env-values.js';
import { pricesVariable } from './price-config.js';

/**
 * How agents run, whichever agent a session picks: the demo agent's pacing, what waits for
 * approval, what model calls cost and how many tokens a session may spend. The `openai` agent's
 * endpoint variables are its own (`agents/openai/config.ts`): a mistake there makes that agent
 * unavailable with the reason, it does not stop the server.
 */
export interface AgentsConfig {
  /** Pacing of the demo agent between tokens (a session's `options.tokenDelayMs` wins). */
  tokenDelayMs: number;
  /**
   * Which tool calls of sessions created without `options.approve` wait for the user's approval
   * (INTERTHOUGHT_APPROVE: `all`, `none`, comma-separated tool names, or rules as JSON; default: none set, so
   * the tools that change something wait and those that only read do not).
   */
  defaultApprove: ApprovalPolicy | undefined;
  /** Model prices in US dollars per million tokens (INTERTHOUGHT_PRICES, JSON), to cost model calls. Undefined: tokens only. */
  prices: PriceTable | undefined;
  /** Every session's token budget, which a session's `options.maxTokens` may lower (INTERTHOUGHT_MAX_TOKENS_PER_SESSION). Undefined: none. */
  maxTokensPerSession: number | undefined;
  /** How deep sub-agents may nest (INTERTHOUGHT_MAX_SUBAGENT_DEPTH, default 3; `hello.limits.maxSubagentDepth`, PROTOCOL.md §24.1). */
  maxSubagentDepth: number;
}

/** A bad pacing, approval policy, price table or token budget. */
export class AgentsConfigError extends ConfigError {
  override readonly name = 'AgentsConfigError';
}

/** What rules in INTERTHOUGHT_APPROVE look like, for its error messages. */
const RULES_EXAMPLE = '{"rules":[{"tool":"write_file","decision":"deny"}],"default":"allow"}';

/**
 * INTERTHOUGHT_APPROVE as rules (a value starting with `{`, PROTOCOL.md §25.4): JSON that
 * `ApprovalRulesSchema` accepts, or the path inside it and the reason of every problem.
 */
function approveRules(value: string): { rules: ApprovalPolicy } | { problem: string } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch (error) {
    return { problem: `must be JSON rules such as ${RULES_EXAMPLE}: ${(error as Error).message}` };
  }
  const checked = ApprovalRulesSchema.safeParse(parsed);
  if (checked.success) return { rules: checked.data };
  const problems = checked.error.issues.map((issue) => `${issue.path.length === 0 ? '(the rules)' : issue.path.join('.')}: ${issue.message}`);
  return { problem: `are not valid approval rules: ${problems.join('; ')}` };
}

/** INTERTHOUGHT_APPROVE: `all`, `none`, tool names or rules, as `options.approve` takes them. */
const approvePolicy = z
  .string()
  .optional()
  .transform((raw, ctx): ApprovalPolicy | undefined => {
    const value = raw?.trim() ?? '';
    if (value === '') return undefined;
    if (value === 'all' || value === 'none') return value;
    if (value.startsWith('{')) {
      const read = approveRules(value);
      if ('rules' in read) return read.rules;
      ctx.issues.push({ code: 'custom', input: raw, message: read.problem });
      return z.NEVER;
    }
    const names = value.split(',').map((name) => name.trim()).filter(Boolean);
    const parsed = ApprovalPolicySchema.safeParse(names);
    if (parsed.success) return parsed.data;
    ctx.issues.push({ code: 'custom', input: raw, message: `must be "all", "none" or a comma-separated list of tool names (1 to 64 of them, each 1 to 64 characters), or JSON rules starting with "{", got ${shown(value)}` });
    return z.NEVER;
  });

export const AgentsEnvSchema = z.object({
  INTERTHOUGHT_TOKEN_DELAY_MS: integer(35, 0, 5_000),
  INTERTHOUGHT_APPROVE: approvePolicy,
  INTERTHOUGHT_PRICES: pricesVariable,
  INTERTHOUGHT_MAX_TOKENS_PER_SESSION: optionalInteger(1, 1_000_000_000_000),
  INTERTHOUGHT_MAX_SUBAGENT_DEPTH: integer(DEFAULT_MAX_SUBAGENT_DEPTH, 1, 16),
});

export type AgentsEnv = z.infer<typeof AgentsEnvSchema>;

export function agentsConfigOf(vars: AgentsEnv): AgentsConfig {
  return {
    tokenDelayMs: vars.INTERTHOUGHT_TOKEN_DELAY_MS,
    defaultApprove: vars.INTERTHOUGHT_APPROVE,
    prices: vars.INTERTHOUGHT_PRICES,
    maxTokensPerSession: vars.INTERTHOUGHT_MAX_TOKENS_PER_SESSION,
    maxSubagentDepth: vars.INTERTHOUGHT_MAX_SUBAGENT_DEPTH,
  };
}

/** The agents' variables alone. Throws an `AgentsConfigError` naming every bad one. */
export function readAgentsConfig(env: Env): AgentsConfig {
  return agentsConfigOf(parseEnv(AgentsEnvSchema, env, AgentsConfigError));
}
