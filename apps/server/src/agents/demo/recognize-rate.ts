import { formatNumber } from '../../tools/number-format.js';
import type { UnitDefinition } from '../../tools/units.js';
import { formatWithUnit } from './answer-format.js';
import { say, type Lang } from './language.js';
import type { Outcome, PlanStep, SolvePlan } from './plan.js';
import { mentions, type ProblemFacts } from './problem-facts.js';
import { findUnitMentions, type Quantity } from './quantities.js';
import { answerUnit, conversionTo, inUnits, naturalSpeedUnit, SPEED_PARTS, speedOf, unit, type Speed } from './rate-units.js';

export const SPEED_CUES = ['speed', 'how fast', 'velocity', 'per hour', 'an hour', 'km/h', 'mph', 'm/s', '速度', '多快', '时速', '平均每', '每小时', '每秒', '每分钟'];
export const DISTANCE_CUES = ['how far', 'distance', 'how many km', 'how many kilometres', 'how many kilometers', 'how many miles', 'how many metres', 'how many meters', '多远', '路程', '距离', '多少公里', '多少千米', '多少米', '多少英里', '行驶多少', '走多少', '跑多少', '开多少'];
export const DURATION_CUES = ['how long', 'how much time', 'how many hours', 'how many minutes', '多长时间', '多久', '几小时', '几个小时', '多少小时', '多少分钟', '几分钟', '多少时间'];

/** `resultUnit`: the unit of the calculator's result (a converter after it reports its own). */
function plan(lang: Lang, thought: string, steps: PlanStep[], resultUnit: string, answer: (outcome: Outcome) => string): SolvePlan {
  const divides = steps[0]?.call(undefined).tool === 'calculator' && /\/(?![^(]*\))/u.test(JSON.stringify(steps[0]?.call(undefined).input));
  return {
    kind: 'solve',
    lang,
    thought,
    approach: divides
      ? say(lang, 'One division does it.', '一次除法就够了。')
      : say(lang, 'One multiplication does it.', '一次乘法就够了。'),
    steps,
    resultUnit,
    answer,
  };
}

function quantityText(lang: Lang, quantity: Quantity): string {
  return formatWithUnit(lang, quantity.value, quantity.unit?.symbol);
}

function averageSpeed(facts: ProblemFacts, distance: Quantity, time: Quantity): SolvePlan {
  const { lang } = facts;
  const length = distance.unit as UnitDefinition;
  const duration = time.unit as UnitDefinition;
  const natural = naturalSpeedUnit(length, duration);
  const [lengthSymbol, timeSymbol] = SPEED_PARTS[natural.symbol] ?? ['km', 'h'];
  const expression = `${inUnits(distance.value, length, unit(lengthSymbol)).replace(/^\((.*)\)$/u, '$1')} / ${inUnits(time.value, duration, unit(timeSymbol))}`;
  const asked = findUnitMentions(facts.text).find((m) => m.unit.dimension === 'speed' && m.unit !== natural)?.unit;
  const steps: PlanStep[] = [{ call: () => ({ tool: 'calculator', input: { expression } }) }];
  if (asked) {
    steps.push({
      call: (previous) => ({ tool: 'unit_converter', input: { value: previous?.value ?? 0, from: natural.symbol, to: asked.symbol } }),
      preview: say(lang, `Then I'll convert the result from ${natural.symbol} to ${asked.symbol} with the unit converter.`, `然后用单位换算工具把结果从 ${natural.symbol} 换算成 ${asked.symbol}。`),
    });
  }
  const thought = say(
    lang,
    `Quantities: distance ${quantityText(lang, distance)}, time ${quantityText(lang, time)}. Average speed is distance ÷ time, so I need ${expression.replace(/\//gu, '÷')}, in ${natural.symbol}${asked ? `, and the question wants ${asked.symbol}` : ''}.`,
    `已知：路程${quantityText(lang, distance)}，时间${quantityText(lang, time)}。平均速度 = 路程 ÷ 时间，即 ${expression.replace(/\//gu, '÷')}（单位 ${natural.symbol}）${asked ? `，题目要的是 ${asked.symbol}` : ''}。`,
  );
  return plan(lang, thought, steps, natural.symbol, (outcome) => {
    if (outcome.value === undefined) return say(lang, 'I have no speed to report.', '我没有得到速度。');
    const speed = formatWithUnit(lang, outcome.value, answerUnit(outcome, natural.symbol));
    return say(lang, `The average speed is ${speed}.`, `平均速度是${speed}。`);
  });
}

function distanceCovered(facts: ProblemFacts, speed: Speed, time: Quantity): SolvePlan {
  const { lang } = facts;
  const expression = `${formatNumber(speed.quantity.value)} * ${inUnits(time.value, time.unit as UnitDefinition, speed.time).replace(/^\((.*)\)$/u, '$1')}`;
  const speedText = formatWithUnit(lang, speed.quantity.value, `${speed.length.symbol}/${speed.time.symbol}`);
  const thought = say(
    lang,
    `Quantities: speed ${speedText}, time ${quantityText(lang, time)}. Distance is speed × time: ${expression.replace(/\*/gu, '×')}, in ${speed.length.names.en[1]}.`,
    `已知：速度${speedText}，时间${quantityText(lang, time)}。路程 = 速度 × 时间，即 ${expression.replace(/\*/gu, '×')}（单位${speed.length.names.zh}）。`,
  );
  const convert = conversionTo(facts, 'length', speed.length, [time, speed.quantity]);
  const steps: PlanStep[] = [{ call: () => ({ tool: 'calculator', input: { expression } }) }, ...(convert ? [convert] : [])];
  return plan(lang, thought, steps, speed.length.symbol, (outcome) => {
    if (outcome.value === undefined) return say(lang, 'I have no distance to report.', '我没有得到路程。');
    const distance = formatWithUnit(lang, outcome.value, answerUnit(outcome, speed.length.symbol));
    return say(lang, `The distance is ${distance}.`, `路程是${distance}。`);
  });
}

function timeTaken(facts: ProblemFacts, distance: Quantity, speed: Speed): SolvePlan {
  const { lang } = facts;
  const expression = `${inUnits(distance.value, distance.unit as UnitDefinition, speed.length).replace(/^\((.*)\)$/u, '$1')} / ${formatNumber(speed.quantity.value)}`;
  const speedText = formatWithUnit(lang, speed.quantity.value, `${speed.length.symbol}/${speed.time.symbol}`);
  const thought = say(
    lang,
    `Quantities: distance ${quantityText(lang, distance)}, speed ${speedText}. Time is distance ÷ speed: ${expression.replace(/\//gu, '÷')}, in ${speed.time.names.en[1]}.`,
    `已知：路程${quantityText(lang, distance)}，速度${speedText}。时间 = 路程 ÷ 速度，即 ${expression.replace(/\//gu, '÷')}（单位${speed.time.names.zh}）。`,
  );
  const convert = conversionTo(facts, 'time', speed.time, [distance, speed.quantity]);
  const steps: PlanStep[] = [{ call: () => ({ tool: 'calculator', input: { expression } }) }, ...(convert ? [convert] : [])];
  return plan(lang, thought, steps, speed.time.symbol, (outcome) => {
    if (outcome.value === undefined) return say(lang, 'I have no time to report.', '我没有得到时间。');
    const taken = formatWithUnit(lang, outcome.value, answerUnit(outcome, speed.time.symbol));
    return say(lang, `It takes ${taken}.`, `需要${taken}。`);
  });
}

/** Speed, distance and time problems: "180 km in 2.5 hours, average speed?", "每小时60公里，3小时行驶多少公里？" */
export function recognizeRate(facts: ProblemFacts): SolvePlan | undefined {
  const numbers = facts.quantities.filter((q) => !q.percent && !q.currency);
  if (numbers.length !== 2) return undefined;
  const speeds = numbers.map(speedOf);
  const speedIndex = speeds.findIndex((s) => s !== undefined);
  const speed = speeds[speedIndex];
  const other = numbers[1 - speedIndex];
  if (speed && other) {
    if (other.unit?.dimension === 'time' && mentions(facts, DISTANCE_CUES)) return distanceCovered(facts, speed, other);
    if (other.unit?.dimension === 'length' && mentions(facts, DURATION_CUES)) return timeTaken(facts, other, speed);
    return undefined;
  }
  const distance = numbers.find((q) => q.unit?.dimension === 'length');
  const time = numbers.find((q) => q.unit?.dimension === 'time');
  if (distance && time && mentions(facts, SPEED_CUES)) return averageSpeed(facts, distance, time);
  return undefined;
}
