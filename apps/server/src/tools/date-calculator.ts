import { z } from 'zod';
import { ToolError, type Tool } from './tool.js';

const DAY_MS = 86_400_000;
/** About 27,000 years: any sensible span, and far inside what a JavaScript Date can hold. */
const MAX_DAYS = 10_000_000;
const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'] as const;

const DateCalculatorInputSchema = z.strictObject({
  operation: z
    .enum(['days_between', 'add_days'])
    .describe('"days_between": days from `start` to `end`; "add_days": the date `days` after `start` (negative: before)'),
  start: z.string().max(40).describe('A date as YYYY-MM-DD'),
  end: z.string().max(40).optional().describe('For days_between: the second date, YYYY-MM-DD'),
  days: z.number().int().optional().describe('For add_days: how many days to add (negative to subtract)'),
});

export type DateCalculatorInput = z.infer<typeof DateCalculatorInputSchema>;

export type DateCalculatorOutput =
  | { operation: 'days_between'; start: string; end: string; value: number }
  | { operation: 'add_days'; start: string; days: number; date: string; weekday: string };

/** A calendar date as UTC midnight, so daylight-saving changes never make a day 23 hours long. */
function parseDate(text: string | undefined, field: 'start' | 'end'): number {
  if (text === undefined) throw new ToolError(`"${field}" is required: a date as YYYY-MM-DD.`);
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text.trim());
  if (!match) throw new ToolError(`"${field}" must be a date as YYYY-MM-DD, got "${text}".`);
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const time = Date.UTC(year, month - 1, day);
  const date = new Date(time);
  // Date.UTC rolls 2023-02-30 over to March 2: a round trip that changes the day means no such date.
  if (date.getUTCFullYear() !== year || date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day) {
    throw new ToolError(`"${field}" is not a real date: ${text.trim()}.`);
  }
  return time;
}

function isoDate(time: number): string {
  return new Date(time).toISOString().slice(0, 10);
}

/** Days between two dates or a date plus some days, in the proleptic Gregorian calendar (UTC). */
export function calculateDate(input: DateCalculatorInput): DateCalculatorOutput {
  const start = parseDate(input.start, 'start');
  if (input.operation === 'days_between') {
    const end = parseDate(input.end, 'end');
    return { operation: 'days_between', start: isoDate(start), end: isoDate(end), value: Math.round((end - start) / DAY_MS) };
  }
  if (input.days === undefined) throw new ToolError('"days" is required for add_days: a whole number of days.');
  if (Math.abs(input.days) > MAX_DAYS) throw new ToolError(`"days" must be between -${MAX_DAYS} and ${MAX_DAYS}.`);
  const result = start + input.days * DAY_MS;
  const year = new Date(result).getUTCFullYear();
  if (year < 1 || year > 9999) throw new ToolError('The resulting date falls outside the years 1 to 9999.');
  return { operation: 'add_days', start: isoDate(start), days: input.days, date: isoDate(result), weekday: WEEKDAYS[new Date(result).getUTCDay()] ?? '' };
}

/** Calendar arithmetic: the number of days between two dates, or the date some days after another. */
export const dateCalculatorTool: Tool<DateCalculatorInput> = {
  name: 'date_calculator',
  effect: 'read',
  description:
    'Calendar arithmetic on YYYY-MM-DD dates: {"operation":"days_between","start","end"} counts the days from start to end; ' +
    '{"operation":"add_days","start","days"} gives the date that many days later (negative: earlier).',
  inputSchema: DateCalculatorInputSchema,
  async execute(input, signal) {
    signal.throwIfAborted();
    const parsed = DateCalculatorInputSchema.safeParse(input);
    if (!parsed.success) throw new ToolError('The date calculator needs { "operation", "start", and "end" or "days" }.');
    const output = calculateDate(parsed.data);
    const text =
      output.operation === 'days_between'
        ? `From ${output.start} to ${output.end}: ${output.value} days`
        : `${output.start} ${output.days < 0 ? '−' : '+'} ${Math.abs(output.days)} days = ${output.date} (${output.weekday})`;
    return { output, text };
  },
};
