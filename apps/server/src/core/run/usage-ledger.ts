import type { SessionEvent, Usage } from '@interthought/protocol';
import type { ModelCallReport } from '@interthought/agent';
import type { LiveSession } from '../sessions/live-session.js';
import { priced, type PriceTable } from './model-prices.js';

const isCount = (value: unknown): value is number => typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
const isDuration = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value) && value >= 0;

/** Why an agent's report cannot be recorded, or undefined when it can. Agents are code, but a bad number would corrupt every total after it. */
export function reportProblem(report: ModelCallReport, session: LiveSession): string | undefined {
  const { usage } = report;
  if (typeof report.model !== 'string') return 'model must be a string';
  if (typeof usage !== 'object' || usage === null) return 'usage must be an object';
  if (!isCount(usage.inputTokens) || !isCount(usage.outputTokens)) return 'inputTokens and outputTokens must be whole numbers ≥ 0';
  if (usage.reasoningTokens !== undefined && !isCount(usage.reasoningTokens)) return 'reasoningTokens must be a whole number ≥ 0';
  if (usage.cachedTokens !== undefined && !isCount(usage.cachedTokens)) return 'cachedTokens must be a whole number ≥ 0';
  if (report.timeToFirstTokenMs !== undefined && !isDuration(report.timeToFirstTokenMs)) return 'timeToFirstTokenMs must be a number ≥ 0';
  if (report.durationMs !== undefined && !isDuration(report.durationMs)) return 'durationMs must be a number ≥ 0';
  if (!Array.isArray(report.stepIds)) return 'stepIds must be an array';
  const unknown = report.stepIds.find((stepId) => !session.state.steps.has(stepId));
  return unknown === undefined ? undefined : `step ${String(unknown)} is not a step of session ${session.id}`;
}

/**
 * Append a model call's `usage.recorded` (PROTOCOL.md §22.1), priced from the table: the
 * reducer adds it to the session's totals and puts it on the call's last step.
 */
export function appendUsage(session: LiveSession, report: ModelCallReport, prices: PriceTable | undefined): Usage {
  const { usage } = report;
  const tokens = { inputTokens: usage.inputTokens, outputTokens: usage.outputTokens };
  const event: SessionEvent = {
    type: 'usage.recorded',
    ...session.nextBase(),
    model: report.model,
    usage: priced(report.model, {
      ...tokens,
      ...(usage.reasoningTokens === undefined ? {} : { reasoningTokens: usage.reasoningTokens }),
      ...(usage.cachedTokens === undefined ? {} : { cachedTokens: usage.cachedTokens }),
    }, prices),
    stepIds: [...report.stepIds],
  } as Extract<SessionEvent, { type: 'usage.recorded' }>;
  if (report.timeToFirstTokenMs !== undefined) event.timeToFirstTokenMs = Math.round(report.timeToFirstTokenMs);
  if (report.durationMs !== undefined) event.durationMs = Math.round(report.durationMs);
  session.append(event);
  return event.usage;
}

/** What every model call of this process used, for metrics (`GET /api/metrics`): counters that only grow. */
export class UsageTotals {
  modelCalls = 0;
  inputTokens = 0;
  outputTokens = 0;
  cachedTokens = 0;
  reasoningTokens = 0;
  /** Of the calls whose model has a price. */
  costUsd = 0;

  add(usage: Usage): void {
    this.modelCalls += 1;
    this.inputTokens += usage.inputTokens;
    this.outputTokens += usage.outputTokens;
    this.cachedTokens += usage.cachedTokens ?? 0;
    this.reasoningTokens += usage.reasoningTokens ?? 0;
    this.costUsd += usage.costUsd ?? 0;
  }
}
