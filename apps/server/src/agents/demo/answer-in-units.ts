import { findUnit, type UnitDefinition } from '../../tools/units.js';
import { formatWithUnit } from './answer-format.js';
import { listWords, say, type Lang } from './language.js';
import type { Outcome, PlanStep, SolvePlan, StepValue } from './plan.js';
import type { UnitRequest } from './recognize-unit-request.js';

/** A request for the result in a unit, with the words that asked it ("What is that in kilograms?"). */
export interface UnitPart {
  request: UnitRequest;
  text: string;
}

const DIMENSION_NAMES: Readonly<Record<UnitDefinition['dimension'], [string, string]>> = {
  length: ['a length', '长度'],
  mass: ['a mass', '质量'],
  time: ['a time', '时间'],
  speed: ['a speed', '速度'],
  temperature: ['a temperature', '温度'],
  volume: ['a volume', '体积'],
};

export function unitName(lang: Lang, unit: UnitDefinition): string {
  return lang === 'zh' ? unit.names.zh : unit.names.en[1];
}

/** The unit a plan's result comes in: the target of a conversion it ends with, else its `resultUnit`. */
export function resultUnitOf(plan: SolvePlan): UnitDefinition | undefined {
  const last = plan.steps[plan.steps.length - 1]?.call(undefined, []);
  if (last?.tool === 'unit_converter') return findUnit(last.input.to);
  return plan.resultUnit === undefined ? undefined : findUnit(plan.resultUnit);
}

/**
 * What a unit request comes to for a result in `from`: the unit to convert to, the same unit
 * (nothing to do), or why it cannot be done, said plainly.
 */
export type UnitReading = { kind: 'convert'; to: UnitDefinition } | { kind: 'same'; to: UnitDefinition } | { kind: 'cannot'; why: string };

export function readRequestFor(lang: Lang, request: UnitRequest, from: UnitDefinition | undefined): UnitReading {
  if (request.kind === 'unknown') {
    return { kind: 'cannot', why: say(lang, `I don't know the unit "${request.name}"`, `我不认识“${request.name}”这个单位`) };
  }
  const to = request.unit;
  if (!from) return { kind: 'cannot', why: say(lang, `the result has no unit to convert into ${unitName(lang, to)}`, `结果没有单位，没法换算成${unitName(lang, to)}`) };
  if (from === to) return { kind: 'same', to };
  if (from.dimension !== to.dimension) {
    const [fromEn, fromZh] = DIMENSION_NAMES[from.dimension];
    const [toEn, toZh] = DIMENSION_NAMES[to.dimension];
    return {
      kind: 'cannot',
      why: say(
        lang,
        `the result is ${fromEn} in ${unitName(lang, from)}, and ${unitName(lang, to)} measure ${toEn.replace(/^an? /u, '')}`,
        `结果是以${unitName(lang, from)}为单位的${fromZh}，而${unitName(lang, to)}是${toZh}单位`,
      ),
    };
  }
  return { kind: 'convert', to };
}

/** The final answer's sentence for a part that could not be done. */
export function couldNotSentence(lang: Lang, text: string, why: string): string {
  return say(lang, `I could not work out "${text.trim()}": ${why}.`, `我没能算出“${text.trim()}”：${why}。`);
}

/** A sentence without its closing full stop, so a clause can follow it. */
function open(sentence: string): string {
  return sentence.replace(/[.。]\s*$/u, '');
}

/**
 * The plan that answers `base` and then gives its result in each unit asked for: one unit
 * converter call per unit (each from the base's own result, so nothing is converted twice), and a
 * final answer that states every part: "For 10 people you need 625 grams, which is 0.625
 * kilograms." A part it cannot do is said plainly in the thought and in the answer.
 */
export function withUnitParts(lang: Lang, base: SolvePlan, parts: readonly UnitPart[]): SolvePlan {
  const from = resultUnitOf(base);
  const baseLength = base.steps.length;
  const readings = parts.map((part) => ({ part, reading: readRequestFor(lang, part.request, from) }));
  const targets = readings.flatMap(({ reading }) => (reading.kind === 'convert' ? [reading.to] : []));
  const steps: PlanStep[] = targets.map((to) => ({
    call: (previous: StepValue | undefined, values?: ReadonlyArray<StepValue | undefined>) => {
      const result = values?.[baseLength - 1] ?? previous;
      return { tool: 'unit_converter', input: { value: result?.value ?? 0, from: result?.unit ?? from?.symbol ?? '', to: to.symbol } };
    },
    preview: say(lang, `Then I'll convert the result to ${unitName(lang, to)} with the unit converter.`, `然后用单位换算工具把结果换算成${unitName(lang, to)}。`),
  }));
  const names = targets.map((to) => unitName(lang, to));
  const also = names.length === 0 ? '' : say(lang, ` You also asked for it in ${listWords(lang, names)}: I'll convert the result with the unit converter.`, `你还要求换算成${listWords(lang, names)}：我会用单位换算工具换算结果。`);
  const notes = readings.map(({ part, reading }) => {
    if (reading.kind === 'same') return say(lang, ` I work the result out in ${unitName(lang, reading.to)}, so it needs no conversion.`, `计算结果本身就是${unitName(lang, reading.to)}，不用再换算。`);
    if (reading.kind === 'cannot') return say(lang, ` I can't do "${part.text.trim()}": ${reading.why}.`, `“${part.text.trim()}”我做不到：${reading.why}。`);
    return '';
  });
  return {
    ...base,
    thought: base.thought + also + notes.join(''),
    steps: [...base.steps, ...steps],
    answer: (outcome: Outcome) => {
      const values = outcome.values ?? [];
      const result = values[baseLength - 1];
      const call = base.steps[baseLength - 1]?.call(values[baseLength - 2], values);
      const answered = result
        ? base.answer({ ...result, ...(call ? { call } : {}), fromTool: outcome.asPlanned, asPlanned: outcome.asPlanned, values })
        : base.answer(outcome);
      const converted = targets.flatMap((to, index) => {
        const value = values[baseLength + index];
        return value?.value === undefined ? [] : [formatWithUnit(lang, value.value, value.unit ?? to.symbol)];
      });
      const stated = converted.length === 0 ? answered : say(lang, `${open(answered)}, which is ${listWords(lang, converted)}.`, `${open(answered)}，也就是${converted.join('、')}。`);
      const failed = readings.flatMap(({ part, reading }) => (reading.kind === 'cannot' ? [couldNotSentence(lang, part.text, reading.why)] : []));
      return [stated, ...failed].join(say(lang, ' ', ''));
    },
  };
}
