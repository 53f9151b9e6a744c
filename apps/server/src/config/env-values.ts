import { z } from 'zod';
import { ConfigError, type ConfigProblem } from './config-error.js';

/** The environment a configuration is read from (`process.env`, or a test's own). */
export type Env = Record<string, string | undefined>;

/** A value as a problem message shows it: quoted, and cut short if long. */
export function shown(raw: string): string {
  return JSON.stringify(raw.length > 40 ? `${raw.slice(0, 40)}…` : raw);
}

/** A whole-number variable within [min, max]; unset or empty gives `fallback` (`undefined`: optional). */
function wholeNumber<F extends number | undefined>(fallback: F, min: number, max: number) {
  return z
    .string()
    .optional()
    .transform((raw, ctx): number | F => {
      const text = raw?.trim() ?? '';
      if (text === '') return fallback;
      const value = /^-?\d+$/.test(text) ? Number(text) : Number.NaN;
      if (Number.isSafeInteger(value) && value >= min && value <= max) return value;
      const unset = fallback === undefined ? ', or unset' : '';
      ctx.issues.push({ code: 'custom', input: raw, message: `must be a whole number from ${min} to ${max}${unset}, got ${shown(text)}` });
      return z.NEVER;
    });
}

export const integer = (fallback: number, min: number, max: number) => wholeNumber(fallback, min, max);
export const optionalInteger = (min: number, max: number) => wholeNumber(undefined, min, max);

/** An optional positive number (fractions allowed, e.g. 0.5 requests per second). */
export function positiveNumber(fallback: number, max: number) {
  return z
    .string()
    .optional()
    .transform((raw, ctx) => {
      const text = raw?.trim() ?? '';
      if (text === '') return fallback;
      const value = Number(text);
      if (Number.isFinite(value) && value > 0 && value <= max) return value;
      ctx.issues.push({ code: 'custom', input: raw, message: `must be a number above 0 and at most ${max}, got ${shown(text)}` });
      return z.NEVER;
    });
}

/** A trimmed optional string; empty means unset. */
export const optionalText = z.string().optional().transform((raw) => raw?.trim() || undefined);

/**
 * The variables `schema` reads from `env`, checked. Throws `error` (a `ConfigError` or a concern's
 * own subclass) naming every variable the schema refuses, in the schema's order.
 */
export function parseEnv<S extends z.ZodType>(
  schema: S,
  env: Env,
  error: new (problems: ConfigProblem[]) => ConfigError = ConfigError,
): z.output<S> {
  const parsed = schema.safeParse(env);
  if (parsed.success) return parsed.data;
  throw new error(parsed.error.issues.map((issue) => ({ variable: String(issue.path[0] ?? '(environment)'), problem: issue.message })));
}
