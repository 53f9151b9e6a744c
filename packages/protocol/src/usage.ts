import { z } from 'zod';
import { IdSchema, sessionEventBase } from './common.js';

/*
 * Usage and cost (capability `usage`, PROTOCOL.md §22): the tokens each model call used, as its
 * endpoint reported them, what they cost when the server knows the model's price, and the
 * session's running totals, which a token budget may cap. Totals are the fold of `usage.recorded`
 * events only, so a snapshot, a replay and the list always agree, and no call counts twice.
 */

const TokenCountSchema = z.number().int().min(0);

/** Tokens a model call (or a session) used, and what they cost. */
export const UsageSchema = z.looseObject({
  /** Prompt tokens, the cached ones included. */
  inputTokens: TokenCountSchema,
  /** Completion tokens, the reasoning ones included. */
  outputTokens: TokenCountSchema,
  /** Of `outputTokens`, those the model spent reasoning, when the endpoint says. */
  reasoningTokens: TokenCountSchema.optional(),
  /** Of `inputTokens`, those read from the provider's prompt cache, when the endpoint says. */
  cachedTokens: TokenCountSchema.optional(),
  /** In US dollars, when the server has a price for the model (absent: unknown, not free). */
  costUsd: z.number().min(0).optional(),
});

/** One model call's usage as the last step it produced carries it (`Step.usage`). */
export const CallUsageSchema = UsageSchema.extend({
  /** The model the call asked for. */
  model: z.string(),
  /** Milliseconds from sending the request to the first token of the answer. */
  timeToFirstTokenMs: z.number().min(0).optional(),
  /** Milliseconds from sending the request to the end of the answer. */
  durationMs: z.number().min(0).optional(),
});

/** A session's running totals (`SessionInfo.usage`): every call recorded, invalidated branches included. */
export const SessionUsageSchema = UsageSchema.extend({
  /** Model calls recorded. */
  calls: z.number().int().min(0),
});

/**
 * `usage.recorded`: one model call's usage, once per call, after the steps it produced. `stepIds`
 * are those steps in order (empty when it produced none); the last of them carries it as `usage`.
 */
export const UsageRecordedEventSchema = z.looseObject({
  type: z.literal('usage.recorded'),
  ...sessionEventBase,
  model: z.string(),
  usage: UsageSchema,
  timeToFirstTokenMs: z.number().min(0).optional(),
  durationMs: z.number().min(0).optional(),
  stepIds: z.array(IdSchema),
});

/**
 * Why a session `failed`, for a client to explain it (`SessionInfo.failure`, `session.status.failure`).
 * `budget`: its tokens reached its budget (§22.3). Clients treat a reason they do not know as a plain failure.
 */
export const FailureReasonSchema = z.enum(['budget']);

export type Usage = z.infer<typeof UsageSchema>;
export type CallUsage = z.infer<typeof CallUsageSchema>;
export type SessionUsage = z.infer<typeof SessionUsageSchema>;
export type UsageRecordedEvent = z.infer<typeof UsageRecordedEventSchema>;
export type FailureReason = z.infer<typeof FailureReasonSchema>;

/** The tokens a budget counts: input plus output (reasoning and cached tokens are inside those). */
export function budgetTokens(usage: Pick<Usage, 'inputTokens' | 'outputTokens'> | undefined): number {
  return usage === undefined ? 0 : usage.inputTokens + usage.outputTokens;
}

/** Totals with one more call added: optional counts and the cost appear once any call reported them. */
export function addUsage(totals: SessionUsage | undefined, call: Usage): SessionUsage {
  const next: SessionUsage = {
    inputTokens: (totals?.inputTokens ?? 0) + call.inputTokens,
    outputTokens: (totals?.outputTokens ?? 0) + call.outputTokens,
    calls: (totals?.calls ?? 0) + 1,
  };
  const reasoning = sumOptional(totals?.reasoningTokens, call.reasoningTokens);
  if (reasoning !== undefined) next.reasoningTokens = reasoning;
  const cached = sumOptional(totals?.cachedTokens, call.cachedTokens);
  if (cached !== undefined) next.cachedTokens = cached;
  const cost = sumOptional(totals?.costUsd, call.costUsd);
  if (cost !== undefined) next.costUsd = cost;
  return next;
}

function sumOptional(a: number | undefined, b: number | undefined): number | undefined {
  if (a === undefined) return b;
  return b === undefined ? a : a + b;
}
