import { evaluateExpression } from '../../tools/expression/index.js';
import { formatNumber } from '../../tools/number-format.js';
import type { UnitDefinition } from '../../tools/units.js';
import { formatWithUnit } from './answer-format.js';
import { say, type Lang } from './language.js';
import type { Outcome, PlanStep, SolvePlan, StepValue } from './plan.js';
import { mentions, type ProblemFacts } from './problem-facts.js';
import type { Quantity } from './quantities.js';
import { answerUnit, conversionTo, inUnits, naturalSpeedUnit, SPEED_PARTS, speedOf, unit, type Speed } from './rate-units.js';
import { DISTANCE_CUES, DURATION_CUES } from './recognize-rate.js';

/** Words that join legs of one journey: without them, two distances and two speeds may be two separate trips. */
const SEQUENCE_CUES = ['then', 'after that', 'afterwards', 'followed by', 'next', '再', '然后', '接着', '之后', '随后'];
/** Questions that compare the legs (or two travellers) rather than add them up. */
const COMPARISON_CUES = ['apart', 'difference', 'more than', 'longer', 'faster', 'slower', 'compare', 'each leg', '相距', '相差', '多用', '快多少', '慢多少', '比'];
const AVERAGE_CUES = ['average', 'mean speed', 'overall speed', '平均'];
/** More legs than a spoken trip has: such a text is not read as a journey. */
const MAX_LEGS = 6;

/** One leg of a journey: two of its distance, speed and time are given. */
interface Leg {
  distance?: Quantity;
  speed?: Speed;
  time?: Quantity;
}

/** A leg's distance or time: a number of the task, or what an earlier step computed. */
type Part = { given: number; unit: UnitDefinition } | { step: number; unit: UnitDefinition };

type Asked = 'time' | 'distance' | 'speed';

function legOf(first: Quantity, second: Quantity): Leg | undefined {
  // A leg of no distance, speed or time is not a leg of a journey (and 0 km/h has no time to reach anywhere).
  if (first.value <= 0 || second.value <= 0) return undefined;
  const leg: Leg = {};
  for (const quantity of [first, second]) {
    const speed = speedOf(quantity);
    if (speed && !leg.speed) leg.speed = speed;
    else if (!speed && !quantity.per && quantity.unit?.dimension === 'length' && !leg.distance) leg.distance = quantity;
    else if (!speed && !quantity.per && quantity.unit?.dimension === 'time' && !leg.time) leg.time = quantity;
    else return undefined;
  }
  return leg;
}

/** The legs in the order the text tells them: each two neighbouring numbers make one leg. */
function legsOf(numbers: readonly Quantity[]): Leg[] | undefined {
  if (numbers.length < 4 || numbers.length % 2 !== 0 || numbers.length > MAX_LEGS * 2) return undefined;
  const legs: Leg[] = [];
  for (let i = 0; i < numbers.length; i += 2) {
    const leg = legOf(numbers[i] as Quantity, numbers[i + 1] as Quantity);
    if (!leg) return undefined;
    legs.push(leg);
  }
  return legs;
}

function askedOf(facts: ProblemFacts): Asked | undefined {
  if (mentions(facts, AVERAGE_CUES)) return 'speed';
  if (mentions(facts, DURATION_CUES)) return 'time';
  if (mentions(facts, DISTANCE_CUES)) return 'distance';
  return undefined;
}

/** The number with its unit symbol, for thoughts: "120 km", "每小时60公里（60 km/h）". */
function speedText(lang: Lang, speed: Speed): string {
  return formatWithUnit(lang, speed.quantity.value, `${speed.length.symbol}/${speed.time.symbol}`);
}

function quantityText(lang: Lang, quantity: Quantity): string {
  return formatWithUnit(lang, quantity.value, quantity.unit?.symbol);
}

function describeLeg(lang: Lang, leg: Leg): string {
  const distance = leg.distance && quantityText(lang, leg.distance);
  const time = leg.time && quantityText(lang, leg.time);
  const speed = leg.speed && speedText(lang, leg.speed);
  if (speed) return say(lang, `${distance ?? time} at ${speed}`, `以${speed}行驶${distance ?? time}`);
  return say(lang, `${distance} in ${time}`, `${time}行驶${distance}`);
}

/** An expression without its outer brackets: "(25 / 60)" → "25 / 60". */
function bare(expression: string): string {
  return expression.replace(/^\((.*)\)$/u, '$1');
}

/**
 * A journey of several legs: "120 km at 60 km/h, then 90 km at 45 km/h. How long does the whole
 * trip take? / What is the average speed?", "先以每小时60公里行驶120公里，再以每小时45公里行驶90公里，一共用了多少小时？".
 * Each leg's missing time (or distance) is its own calculator call, then the total, then the
 * average speed (total distance ÷ total time, never the mean of the speeds) and a conversion into
 * the unit asked for: a correction of one leg flows through every step after it.
 */
export function recognizeRateLegs(facts: ProblemFacts): SolvePlan | undefined {
  const numbers = facts.quantities.filter((q) => !q.percent && !q.currency);
  const legs = legsOf(numbers);
  const asked = askedOf(facts);
  if (!legs || !asked || !mentions(facts, SEQUENCE_CUES) || mentions(facts, COMPARISON_CUES)) return undefined;
  const { lang } = facts;

  // The totals are in the units of the speed people would quote for this trip (km and h for km/h).
  const first = legs[0] as Leg;
  const natural = naturalSpeedUnit(
    first.speed?.length ?? (first.distance?.unit as UnitDefinition),
    first.speed?.time ?? (first.time?.unit as UnitDefinition),
  );
  const [lengthSymbol, timeSymbol] = SPEED_PARTS[natural.symbol] ?? ['km', 'h'];
  const length = unit(lengthSymbol);
  const time = unit(timeSymbol);

  const steps: PlanStep[] = [];
  /** What each calculator step gives as planned, for the text of later calls before the tools ran (and for coverage). */
  const planned: number[] = [];
  const valueOf = (part: Part, values: ReadonlyArray<StepValue | undefined> | undefined): number =>
    'given' in part ? part.given : (values?.[part.step]?.value ?? planned[part.step] ?? 0);
  const addStep = (expression: (values: ReadonlyArray<StepValue | undefined> | undefined) => string, preview: string): number => {
    steps.push({ call: (_previous, values) => ({ tool: 'calculator', input: { expression: expression(values) } }), ...(steps.length > 0 ? { preview } : {}) });
    planned.push(evaluateExpression(expression(undefined)).value);
    return steps.length - 1;
  };

  const needTime = asked !== 'distance';
  const needDistance = asked !== 'time';
  const times: Part[] = [];
  const distances: Part[] = [];
  try {
    legs.forEach((leg, i) => {
      const n = i + 1;
      if (leg.time) times.push({ given: leg.time.value, unit: leg.time.unit as UnitDefinition });
      else if (needTime && leg.distance && leg.speed) {
        const expression = `${bare(inUnits(leg.distance.value, leg.distance.unit as UnitDefinition, leg.speed.length))} / ${formatNumber(leg.speed.quantity.value)}`;
        const step = addStep(() => expression, say(lang, `Then I'll work out the time of leg ${n} the same way.`, `然后用同样的方法算第${n}段的时间。`));
        times.push({ step, unit: leg.speed.time });
      }
      if (leg.distance) distances.push({ given: leg.distance.value, unit: leg.distance.unit as UnitDefinition });
      else if (needDistance && leg.time && leg.speed) {
        const expression = `${formatNumber(leg.speed.quantity.value)} * ${bare(inUnits(leg.time.value, leg.time.unit as UnitDefinition, leg.speed.time))}`;
        const step = addStep(() => expression, say(lang, `Then I'll work out the distance of leg ${n} the same way.`, `然后用同样的方法算第${n}段的路程。`));
        distances.push({ step, unit: leg.speed.length });
      }
    });
    const sum = (parts: readonly Part[], to: UnitDefinition) => (values: ReadonlyArray<StepValue | undefined> | undefined) =>
      parts.map((part) => inUnits(valueOf(part, values), part.unit, to)).join(' + ');
    const totalTime = needTime ? addStep(sum(times, time), say(lang, `Then I'll add up the times of the legs.`, '然后把各段的时间加起来。')) : undefined;
    const totalDistance = needDistance ? addStep(sum(distances, length), say(lang, `Then I'll add up the distances.`, '然后把各段的路程加起来。')) : undefined;
    if (asked === 'speed' && totalTime !== undefined && totalDistance !== undefined) {
      const total = (step: number, values: ReadonlyArray<StepValue | undefined> | undefined) => formatNumber(valueOf({ step, unit: length }, values));
      addStep(
        (values) => `${total(totalDistance, values)} / ${total(totalTime, values)}`,
        say(lang, 'Then I\'ll divide the total distance by the total time.', '然后用总路程除以总时间。'),
      );
    }
  } catch {
    // A step the calculator cannot evaluate has no number to plan the steps after it with.
    return undefined;
  }

  const resultUnit = asked === 'time' ? time : asked === 'distance' ? length : natural;
  const convert = conversionTo(facts, asked === 'distance' ? 'length' : asked, resultUnit, numbers);
  if (convert) steps.push(convert);

  const described = legs.map((leg) => describeLeg(lang, leg)).join(say(lang, ', then ', '，再'));
  const how = {
    time: say(lang, "Each leg's time is distance ÷ speed; the whole trip's time is their sum.", '每段的时间 = 路程 ÷ 速度，全程的时间是各段时间之和。'),
    distance: say(lang, "Each leg's distance is speed × time; the whole trip's distance is their sum.", '每段的路程 = 速度 × 时间，全程的路程是各段路程之和。'),
    speed: legs.some((leg) => !leg.time)
      ? say(
          lang,
          "The average speed is the total distance ÷ the total time (not the mean of the speeds), so I need each leg's time first.",
          '平均速度 = 总路程 ÷ 总时间（不是各段速度的平均数），所以先算出每段的时间。',
        )
      : say(lang, 'The average speed is the total distance ÷ the total time.', '平均速度 = 总路程 ÷ 总时间。'),
  }[asked];
  return {
    kind: 'solve',
    lang,
    thought: say(lang, `The trip has ${legs.length} legs: ${described}. ${how}`, `全程分${legs.length}段：${described}。${how}`),
    approach: say(lang, 'One calculation per leg, then the totals, each its own tool call.', '每段算一次，再算总数，每一步各用一次工具。'),
    steps,
    answer: (outcome: Outcome) => {
      if (outcome.value === undefined) return say(lang, 'I have no result to report.', '我没有得到结果。');
      const result = formatWithUnit(lang, outcome.value, answerUnit(outcome, resultUnit.symbol));
      if (asked === 'time') return say(lang, `Altogether it takes ${result}.`, `一共用了${result}。`);
      if (asked === 'distance') return say(lang, `Altogether the distance is ${result}.`, `全程一共${result}。`);
      return say(lang, `The average speed over the whole trip is ${result}.`, `全程的平均速度是${result}。`);
    },
  };
}
