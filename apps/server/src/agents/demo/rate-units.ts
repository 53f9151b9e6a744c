import { formatNumber } from '../../tools/number-format.js';
import { findUnit, type Dimension, type UnitDefinition } from '../../tools/units.js';
import { say } from './language.js';
import type { Outcome, PlanStep } from './plan.js';
import type { ProblemFacts } from './problem-facts.js';
import { findUnitMentions, type Quantity } from './quantities.js';

/** A speed as length per time, however it was written (72 km/h, 60 km per hour, 每小时60公里). */
export interface Speed {
  quantity: Quantity;
  length: UnitDefinition;
  time: UnitDefinition;
}

/** The length and time of each speed unit the unit table has. */
export const SPEED_PARTS: Readonly<Record<string, [string, string]>> = { 'km/h': ['km', 'h'], 'm/s': ['m', 's'], mph: ['mi', 'h'] };

export function unit(symbol: string): UnitDefinition {
  const found = findUnit(symbol);
  if (!found) throw new Error(`The unit table lacks "${symbol}".`);
  return found;
}

export function speedOf(quantity: Quantity): Speed | undefined {
  const parts = quantity.unit ? SPEED_PARTS[quantity.unit.symbol] : undefined;
  if (parts) return { quantity, length: unit(parts[0]), time: unit(parts[1]) };
  if (quantity.unit?.dimension === 'length' && quantity.per?.unit?.dimension === 'time') {
    return { quantity, length: quantity.unit, time: quantity.per.unit };
  }
  return undefined;
}

/** The speed unit people would quote for a distance over a time: mph for miles, m/s for metres over seconds, else km/h. */
export function naturalSpeedUnit(length: UnitDefinition, time: UnitDefinition): UnitDefinition {
  if (length.symbol === 'mi') return unit('mph');
  if (['m', 'cm', 'mm'].includes(length.symbol) && time.symbol === 's') return unit('m/s');
  return unit('km/h');
}

/** `value` written in `to` units: "25 / 60" for 25 min in hours, "5000 / 1000" for 5000 m in km. */
export function inUnits(value: number, from: UnitDefinition, to: UnitDefinition): string {
  const factor = from.toBase(1) / to.toBase(1);
  const n = formatNumber(value);
  if (factor === 1) return n;
  const inverse = 1 / factor;
  return Number.isInteger(inverse) ? `(${n} / ${inverse})` : `(${n} * ${formatNumber(factor)})`;
}

/** The final unit: the converter's, when a conversion ran last, else the plan's. */
export function answerUnit(outcome: Outcome, planned: string): string {
  return outcome.call?.tool === 'unit_converter' ? (outcome.unit ?? findUnit(outcome.call.input.to)?.symbol ?? planned) : planned;
}

/** A unit of `dimension` the question asks for other than `natural` ("in minutes", 多少千克), and the step that converts into it. */
export function conversionTo(
  facts: ProblemFacts,
  dimension: Dimension,
  natural: UnitDefinition,
  exclude: readonly Quantity[],
): PlanStep | undefined {
  const asked = findUnitMentions(facts.text).find(
    (m) => m.unit.dimension === dimension && m.unit !== natural && !exclude.some((q) => m.start < q.end && m.end > q.start),
  )?.unit;
  if (!asked) return undefined;
  return {
    call: (previous) => ({ tool: 'unit_converter', input: { value: previous?.value ?? 0, from: natural.symbol, to: asked.symbol } }),
    preview: say(facts.lang, `Then I'll convert the result from ${natural.symbol} to ${asked.symbol} with the unit converter.`, `然后用单位换算工具把结果从 ${natural.symbol} 换算成 ${asked.symbol}。`),
  };
}
