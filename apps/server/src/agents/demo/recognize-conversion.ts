import { findUnit, type Dimension, type UnitDefinition } from '../../tools/units.js';
import { formatWithUnit } from './answer-format.js';
import { say, type Lang } from './language.js';
import type { Outcome, PlannedCall, SolvePlan } from './plan.js';
import type { ProblemFacts } from './problem-facts.js';
import { findUnitMentions, type UnitMention } from './quantities.js';

const DIMENSION_NAMES: Readonly<Record<Dimension, [string, string]>> = {
  length: ['length', '长度'],
  mass: ['mass', '质量'],
  time: ['time', '时间'],
  speed: ['speed', '速度'],
  temperature: ['temperature', '温度'],
  volume: ['volume', '体积'],
};

/** Words just before the unit asked for: "in minutes", "to miles", "换算成分钟", "是多少分钟". */
const TARGET_CUE = /(?:\bin|\binto|\bto|\bas|how many|how much|成|是多少|等于多少|合多少|有多少|多少|几)\s*$/iu;

function unitName(lang: Lang, unit: UnitDefinition): string {
  return lang === 'zh' ? unit.names.zh : unit.names.en[1];
}

/** The conversion's final answer, read from the call that actually ran: "3.5 hours is 210 minutes." */
export function conversionAnswer(lang: Lang, outcome: Outcome): string {
  const call = outcome.call;
  if (outcome.value === undefined || call?.tool !== 'unit_converter') {
    return say(lang, 'I have no converted value to report.', '我没有得到换算结果。');
  }
  const toSymbol = outcome.unit ?? findUnit(call.input.to)?.symbol ?? call.input.to;
  const fromSymbol = findUnit(call.input.from)?.symbol ?? call.input.from;
  const from = formatWithUnit(lang, call.input.value, fromSymbol);
  const to = formatWithUnit(lang, outcome.value, toSymbol);
  // A rounded value opens the sentence with "about": it still starts with a capital.
  return say(lang, `${from.charAt(0).toUpperCase()}${from.slice(1)} is ${to}.`, `${from}等于${to}。`);
}

/** A plan of one unit conversion. */
export function conversionPlan(lang: Lang, value: number, from: UnitDefinition, to: UnitDefinition): SolvePlan {
  const [dimensionEn, dimensionZh] = DIMENSION_NAMES[from.dimension];
  const call: PlannedCall = { tool: 'unit_converter', input: { value, from: from.symbol, to: to.symbol } };
  return {
    kind: 'solve',
    lang,
    thought: say(
      lang,
      `This is a unit conversion: ${formatWithUnit(lang, value, from.symbol)} into ${unitName(lang, to)}, both ${dimensionEn} units.`,
      `这是单位换算：把${formatWithUnit(lang, value, from.symbol)}换算成${unitName(lang, to)}，两者都是${dimensionZh}单位。`,
    ),
    approach: say(
      lang,
      'Conversion factors are easy to misremember; the unit converter has the exact ones.',
      '换算系数容易记错，单位换算工具里有精确的系数。',
    ),
    steps: [{ call: () => call }],
    answer: (outcome) => conversionAnswer(lang, outcome),
  };
}

function pickTarget(facts: ProblemFacts, source: UnitMention | { unit: UnitDefinition; start: number; end: number }, mentions: UnitMention[]): UnitDefinition | undefined {
  const candidates = mentions.filter(
    (m) => m.unit.dimension === source.unit.dimension && m.unit !== source.unit && (m.end <= source.start || m.start >= source.end),
  );
  const cued = candidates.find((m) => TARGET_CUE.test(facts.text.slice(Math.max(0, m.start - 12), m.start)));
  return (cued ?? candidates[0])?.unit;
}

/** "How many minutes are in 3.5 hours?", "5公里等于多少英里", "100°F in Celsius", "How many seconds are in a day?" */
export function recognizeConversion(facts: ProblemFacts): SolvePlan | undefined {
  const mentions = findUnitMentions(facts.text);
  if (facts.quantities.length === 1) {
    const [quantity] = facts.quantities;
    if (!quantity?.unit || quantity.per) return undefined;
    const to = pickTarget(facts, { unit: quantity.unit, start: quantity.start, end: quantity.end }, mentions);
    return to ? conversionPlan(facts.lang, quantity.value, quantity.unit, to) : undefined;
  }
  if (facts.quantities.length > 0) return undefined;
  // No number: "a day", "one mile", "一天", "每小时" name one of the unit.
  const single = mentions.find((m) => /(?:\ban?|\bone|一|每)\s*$/iu.test(facts.text.slice(Math.max(0, m.start - 5), m.start)));
  if (!single) return undefined;
  const to = pickTarget(facts, single, mentions);
  return to ? conversionPlan(facts.lang, 1, single.unit, to) : undefined;
}
