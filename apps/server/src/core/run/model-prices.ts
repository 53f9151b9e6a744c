import type { Usage } from '@interthought/protocol';
import type { ReportedTokens } from '@interthought/agent';

/** A model's price in US dollars per million tokens; `cached` prices prompt tokens read from the provider's cache. */
export interface ModelPrice {
  input: number;
  output: number;
  cached?: number;
}

/** Prices by exact model name, as the server's operator set them (INTERTHOUGHT_PRICES). */
export type PriceTable = ReadonlyMap<string, ModelPrice>;

const PER_MILLION = 1_000_000;

/**
 * What a call's tokens cost (PROTOCOL.md §22.2 "Cost"): uncached input at the input price,
 * cached input at the cached price (else the input price), output (reasoning included) at the
 * output price.
 */
export function costUsd(usage: ReportedTokens, price: ModelPrice): number {
  const cached = Math.min(usage.cachedTokens ?? 0, usage.inputTokens);
  const uncached = usage.inputTokens - cached;
  return (uncached * price.input + cached * (price.cached ?? price.input) + usage.outputTokens * price.output) / PER_MILLION;
}

/** The call's usage with its cost when the table prices its model; without one, tokens only (unknown is not free). */
export function priced(model: string, usage: ReportedTokens, prices: PriceTable | undefined): Usage {
  const price = prices?.get(model);
  return price === undefined ? { ...usage } : { ...usage, costUsd: costUsd(usage, price) };
}
