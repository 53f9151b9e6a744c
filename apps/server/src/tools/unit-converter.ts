import { z } from 'zod';
import { formatNumber, roundResult } from './number-format.js';
import { ToolError, type Tool } from './tool.js';
import { DIMENSIONS, findUnit, listUnits, type UnitDefinition } from './units.js';

const UnitConverterInputSchema = z.strictObject({
  value: z.number().describe('The quantity to convert, e.g. 3.5'),
  from: z.string().max(50).describe('The unit of `value`, e.g. "h", "km", "°F", "斤"'),
  to: z.string().max(50).describe('The unit to convert into, e.g. "min", "mi", "°C", "kg"'),
});

export type UnitConverterInput = z.infer<typeof UnitConverterInputSchema>;

/** The converter's structured output: the converted `value` in `unit`, and what was converted. */
export interface UnitConverterOutput {
  value: number;
  unit: string;
  from: { value: number; unit: string };
}

function everyUnit(): string {
  return DIMENSIONS.map((dimension) => `${dimension}: ${listUnits(dimension)}`).join('; ');
}

/** Look a unit up, or explain which units exist (of the other side's dimension, when that one is known). */
function resolveUnit(spelling: string, side: 'from' | 'to', other: string): UnitDefinition {
  const unit = findUnit(spelling);
  if (unit) return unit;
  const otherUnit = findUnit(other);
  const known = otherUnit
    ? `Known ${otherUnit.dimension} units: ${listUnits(otherUnit.dimension)}.`
    : `Known units: ${everyUnit()}.`;
  const what = spelling.trim() === '' ? `The "${side}" unit is empty.` : `Unknown unit "${spelling.trim()}".`;
  throw new ToolError(`${what} ${known}`);
}

/** Temperatures below absolute zero do not exist, so converting one would print a meaningless number. */
function checkPhysical(value: number, unit: UnitDefinition): void {
  if (unit.dimension !== 'temperature' || unit.toBase(value) >= 0) return;
  const limit = formatNumber(unit.fromBase(0));
  throw new ToolError(`${formatNumber(value)} ${unit.symbol} is below absolute zero (${limit} ${unit.symbol}).`);
}

/** Convert `value` from one unit into another; throws a `ToolError` for unknown or incompatible units. */
export function convertUnits(input: UnitConverterInput): UnitConverterOutput {
  const from = resolveUnit(input.from, 'from', input.to);
  const to = resolveUnit(input.to, 'to', input.from);
  if (from.dimension !== to.dimension) {
    throw new ToolError(
      `Cannot convert ${from.symbol} (${from.dimension}) to ${to.symbol} (${to.dimension}). ` +
        `Known ${from.dimension} units: ${listUnits(from.dimension)}.`,
    );
  }
  checkPhysical(input.value, from);
  const converted = roundResult(to.fromBase(from.toBase(input.value)));
  if (!Number.isFinite(converted)) throw new ToolError('Result too large: it exceeds about 1.8e308.');
  return { value: converted, unit: to.symbol, from: { value: input.value, unit: from.symbol } };
}

/** Converts between units of length, mass, time, speed, temperature and volume (English and Chinese unit names). */
export const unitConverterTool: Tool<UnitConverterInput> = {
  name: 'unit_converter',
  effect: 'read',
  description:
    'Convert a value between units of the same dimension. Units: ' +
    DIMENSIONS.map((dimension) => `${dimension} (${listUnits(dimension)})`).join('; ') +
    '. Full names and Chinese names (公里, 小时, 斤 …) are accepted too.',
  inputSchema: UnitConverterInputSchema,
  async execute(input, signal) {
    signal.throwIfAborted();
    const parsed = UnitConverterInputSchema.safeParse(input);
    if (!parsed.success) throw new ToolError('The unit converter needs { "value": <number>, "from": "<unit>", "to": "<unit>" }.');
    const output = convertUnits(parsed.data);
    const text = `${formatNumber(output.from.value)} ${output.from.unit} = ${formatNumber(output.value)} ${output.unit}`;
    return { output, text };
  },
};
