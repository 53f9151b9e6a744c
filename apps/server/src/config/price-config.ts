import { z } from 'zod';
import type { ModelPrice, PriceTable } from '../core/run/model-prices.js';

/** What INTERTHOUGHT_PRICES looks like, for its error messages. */
const EXAMPLE = '{"gpt-4o-mini":{"input":0.15,"output":0.6,"cached":0.075}}';
const PRICE_FIELDS = ['input', 'output', 'cached'] as const;
/** Far above any model's price per million tokens: a larger one is a typo (per token, or in cents). */
const PRICE_MAX = 1_000_000;

const describe = (value: unknown): string => {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
};

/** The problems of one model's entry, each naming the model and the field. */
function priceProblems(model: string, entry: unknown): { price?: ModelPrice; problems: string[] } {
  const where = `model ${JSON.stringify(model)}`;
  if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
    return { problems: [`${where} must have an object { "input": …, "output": …, "cached"?: … } of US dollars per million tokens, got ${describe(entry)}`] };
  }
  const fields = entry as Record<string, unknown>;
  const problems: string[] = [];
  for (const key of Object.keys(fields)) {
    if (!(PRICE_FIELDS as readonly string[]).includes(key)) problems.push(`${where} has an unknown field ${JSON.stringify(key)}: use "input", "output" and optionally "cached"`);
  }
  for (const key of PRICE_FIELDS) {
    const value = fields[key];
    if (value === undefined && key === 'cached') continue;
    if (value === undefined) problems.push(`${where} needs "${key}", in US dollars per million tokens`);
    else if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > PRICE_MAX) {
      problems.push(`${where}: "${key}" must be a number from 0 to ${PRICE_MAX.toLocaleString('en-US')} (US dollars per million tokens), got ${describe(value)}`);
    }
  }
  if (problems.length > 0) return { problems };
  const price: ModelPrice = { input: fields.input as number, output: fields.output as number };
  if (fields.cached !== undefined) price.cached = fields.cached as number;
  return { price, problems };
}

/**
 * INTERTHOUGHT_PRICES: a JSON object of model prices, `{ "<model>": { "input", "output", "cached"? } }`
 * in US dollars per million tokens (PROTOCOL.md §22.2 "Cost"). Unset or empty: no prices, so calls
 * are recorded with their tokens only. Every problem is reported, each naming its model and field.
 */
export const pricesVariable = z
  .string()
  .optional()
  .transform((raw, ctx): PriceTable | undefined => {
    const text = raw?.trim() ?? '';
    if (text === '') return undefined;
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (error) {
      ctx.issues.push({ code: 'custom', input: raw, message: `must be JSON such as ${EXAMPLE} (US dollars per million tokens): ${(error as Error).message}` });
      return z.NEVER;
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      ctx.issues.push({ code: 'custom', input: raw, message: `must be a JSON object of model names to prices, such as ${EXAMPLE}, got ${describe(parsed)}` });
      return z.NEVER;
    }
    const table = new Map<string, ModelPrice>();
    const problems: string[] = [];
    for (const [model, entry] of Object.entries(parsed)) {
      if (model.trim() === '') {
        problems.push('has an empty model name: name each model as sessions ask for it (options.model or INTERTHOUGHT_MODEL)');
        continue;
      }
      const checked = priceProblems(model, entry);
      problems.push(...checked.problems);
      if (checked.price !== undefined) table.set(model, checked.price);
    }
    for (const message of problems) ctx.issues.push({ code: 'custom', input: raw, message });
    return problems.length > 0 ? z.NEVER : table;
  });
