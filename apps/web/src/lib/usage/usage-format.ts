import type { CallUsage, SessionUsage } from '@interthought/protocol';
import type { I18n } from '$lib/i18n/index.js';

/** Below this a cost shows as "< $0.0001": the digits after it mean nothing to anyone. */
const SMALLEST_COST = 0.0001;

/** US dollars, as precisely as a model call's cost needs: "$0.0021", "$1.24", "< $0.0001". */
export function formatUsd(i18n: I18n, usd: number): string {
  const currency = { style: 'currency', currency: 'USD' } as const;
  if (usd === 0) return i18n.formatNumber(0, { ...currency, maximumFractionDigits: 0 });
  if (usd < SMALLEST_COST) return `< ${i18n.formatNumber(SMALLEST_COST, { ...currency, maximumSignificantDigits: 1 })}`;
  if (usd < 1) return i18n.formatNumber(usd, { ...currency, maximumSignificantDigits: 2 });
  return i18n.formatNumber(usd, { ...currency, minimumFractionDigits: 2, maximumFractionDigits: 2 });
}

/** Seconds with one decimal: "0.8s" / "0.8秒". */
export function formatSeconds(i18n: I18n, ms: number): string {
  return i18n.formatNumber(ms / 1000, { style: 'unit', unit: 'second', unitDisplay: 'narrow', maximumFractionDigits: 1 });
}

/** A step's call in one muted line: "1,234 → 56 tokens · first token 0.8s · $0.0021". */
export function stepUsageLine(i18n: I18n, usage: CallUsage): string {
  const parts = [i18n.t('usage.tokens', { input: usage.inputTokens, output: usage.outputTokens })];
  if (usage.timeToFirstTokenMs !== undefined) parts.push(i18n.t('usage.firstToken', { time: formatSeconds(i18n, usage.timeToFirstTokenMs) }));
  if (usage.costUsd !== undefined) parts.push(formatUsd(i18n, usage.costUsd));
  return parts.join(' · ');
}

/** Everything known of a step's call, for its tooltip and screen readers. */
export function stepUsageDetails(i18n: I18n, usage: CallUsage): string {
  const parts = [i18n.t('usage.model', { model: usage.model })];
  parts.push(tokenDetails(i18n, usage));
  if (usage.durationMs !== undefined) parts.push(i18n.t('usage.duration', { time: formatSeconds(i18n, usage.durationMs) }));
  if (usage.costUsd === undefined) parts.push(i18n.t('usage.noPrice'));
  return parts.join(' · ');
}

/** The session's totals in the header: "12,345 tokens · $0.042". */
export function sessionUsageLine(i18n: I18n, usage: SessionUsage): string {
  const total = i18n.t('usage.total', { count: usage.inputTokens + usage.outputTokens });
  return usage.costUsd === undefined ? total : `${total} · ${formatUsd(i18n, usage.costUsd)}`;
}

/** The totals spelled out: input and output, cached and reasoning, over how many calls. */
export function sessionUsageDetails(i18n: I18n, usage: SessionUsage): string {
  return `${i18n.t('usage.calls', { count: usage.calls })} · ${tokenDetails(i18n, usage)}`;
}

function tokenDetails(i18n: I18n, usage: Pick<SessionUsage, 'inputTokens' | 'outputTokens' | 'cachedTokens' | 'reasoningTokens'>): string {
  const input = i18n.t('usage.input', { count: usage.inputTokens });
  const output = i18n.t('usage.output', { count: usage.outputTokens });
  const cached = usage.cachedTokens ? ` (${i18n.t('usage.cached', { count: usage.cachedTokens })})` : '';
  const reasoning = usage.reasoningTokens ? ` (${i18n.t('usage.reasoning', { count: usage.reasoningTokens })})` : '';
  return `${input}${cached}, ${output}${reasoning}`;
}
