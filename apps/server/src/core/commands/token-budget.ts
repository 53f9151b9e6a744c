import { budgetTokens, type SessionOptions, type SessionState } from '@interthought/protocol';
import { SessionError } from '../session-error.js';

/** A session's tokens against its budget. */
export interface BudgetUse {
  used: number;
  budget: number;
}

const formatTokens = (n: number): string => n.toLocaleString('en-US');

/**
 * A session's token budget (PROTOCOL.md §22.3 "Budgets"): its own `options.maxTokens` and the
 * server's, the smaller of the two; a client may lower the server's budget, never raise it.
 */
export function tokenBudgetOf(options: SessionOptions, serverMax: number | undefined): number | undefined {
  const own = options.maxTokens;
  if (own === undefined) return serverMax;
  return serverMax === undefined ? own : Math.min(own, serverMax);
}

/** The session's tokens when they reached its budget, else undefined (no budget, or room left). */
export function budgetReached(state: SessionState, options: SessionOptions, serverMax: number | undefined): BudgetUse | undefined {
  const budget = tokenBudgetOf(options, serverMax);
  if (budget === undefined) return undefined;
  const used = budgetTokens(state.session.usage);
  return used >= budget ? { used, budget } : undefined;
}

/** The `error` of a session stopped by its budget, for people; `failure: "budget"` says it to clients. */
export function budgetStopMessage(use: BudgetUse): string {
  return `Token budget spent: ${formatTokens(use.used)} of ${formatTokens(use.budget)} tokens used. Fork the session to go on, or have its budget raised.`;
}

/** Refuse a request that would start a run on a session whose tokens reached its budget. */
export function checkBudget(state: SessionState, options: SessionOptions, serverMax: number | undefined): void {
  const use = budgetReached(state, options, serverMax);
  if (use === undefined) return;
  throw new SessionError(
    'BUDGET_EXCEEDED',
    `Session ${state.session.sessionId} used ${formatTokens(use.used)} tokens of its budget of ${formatTokens(use.budget)}, so nothing more runs on it: fork it or start a new session, or have the budget raised.`,
  );
}
