import { findUnit, type UnitDefinition } from '../../tools/units.js';
import { say, type Lang } from './language.js';
import type { PlannedCall, ReplyPlan, SolvePlan, StepValue } from './plan.js';
import { formatWithUnit } from './answer-format.js';
import { findUnitMentions } from './quantities.js';
import { conversionPlan } from './recognize-conversion.js';
import { normaliseProblemText } from './text-normalize.js';

/** Words that make a reason an instruction to convert: "convert to kg instead", "in pounds", "换算成千克", "用公斤". */
const INSTEAD_CUE = /\binstead\b|\bconvert|\brather\b|\buse\b|\bin\b|\bto\b|\binto\b|换算|转换|改成|改为|换成|改用|用/iu;
const NEGATION = /\b(?:not|no|never|without|don't|dont|doesn't|won't)\b|不|别|勿|无需/iu;
/** Just before the unit asked for. */
const TARGET_CUE = /(?:\bto|\binto|\bin|\buse|\bas|成|为|用)\s*$/iu;

/** The unit a rejection's reason asks for instead ("convert to kilograms instead"), if it asks for one. */
export function unitAskedInstead(reason: string): UnitDefinition | undefined {
  const text = normaliseProblemText(reason);
  if (!INSTEAD_CUE.test(text)) return undefined;
  // "not in grams", "不要克": a unit the reason turns down is not the one it asks for.
  const mentions = findUnitMentions(text).filter((m) => !NEGATION.test(text.slice(Math.max(0, m.start - 20), m.start)));
  const cued = mentions.filter((m) => TARGET_CUE.test(text.slice(Math.max(0, m.start - 8), m.start)));
  const [only] = cued.length > 0 ? cued : mentions;
  return (cued.length > 0 ? cued.length : mentions.length) === 1 ? only?.unit : undefined;
}

/** The quantity the refused call was about: the converter's input, else the last result with its unit. */
function quantityAtHand(refused: PlannedCall | undefined, last: StepValue | undefined): { value: number; unit: UnitDefinition } | undefined {
  if (refused?.tool === 'unit_converter') {
    const unit = findUnit(refused.input.from);
    return unit ? { value: refused.input.value, unit } : undefined;
  }
  const unit = last?.unit === undefined ? undefined : findUnit(last.unit);
  return last?.value !== undefined && unit ? { value: last.value, unit } : undefined;
}

/**
 * "请用千米每小时回答" as the reason for refusing a conversion of 75 km/h into m/s: the quantity
 * at hand is in the unit asked for already, so it is the answer, and no call is needed.
 */
function alreadyInUnit(lang: Lang, reason: string, value: number, unit: UnitDefinition): ReplyPlan {
  const unitName = lang === 'zh' ? unit.names.zh : unit.names.en[1];
  const shown = formatWithUnit(lang, value, unit.symbol);
  return {
    kind: 'reply',
    lang,
    thought: say(
      lang,
      `You declined that call and asked for ${unitName} ("${reason.trim()}"); the result before it is ${shown} already, so no conversion is needed.`,
      `你拒绝了这次调用，要求用${unitName}（“${reason.trim()}”）；调用前的结果本来就是${shown}，不需要换算。`,
    ),
    answer: say(lang, `As you asked, in ${unitName}: the result before that conversion is ${shown}, so that is the answer.`, `按你的要求用${unitName}：换算前的结果就是${shown}，这就是答案。`),
  };
}

/**
 * After the user refused a call with a reason that says what to do instead (PROTOCOL.md §19.3:
 * `result { refused, reason }`), the plan that does it: "convert to kilograms instead" converts
 * the quantity at hand to kilograms. Undefined when the reason asks for nothing this agent can do,
 * or for the very call that was refused (that would only retry it).
 */
export function insteadPlan(lang: Lang, reason: string, refused: PlannedCall | undefined, last: StepValue | undefined): SolvePlan | ReplyPlan | undefined {
  const to = unitAskedInstead(reason);
  const at = quantityAtHand(refused, last);
  if (!to || !at || to.dimension !== at.unit.dimension) return undefined;
  if (to === at.unit) return alreadyInUnit(lang, reason, at.value, to);
  if (refused?.tool === 'unit_converter' && findUnit(refused.input.to) === to) return undefined;
  const plan = conversionPlan(lang, at.value, at.unit, to);
  const unitName = lang === 'zh' ? to.names.zh : to.names.en[1];
  return {
    ...plan,
    approach: say(
      lang,
      `You declined that call and asked for ${unitName} instead ("${reason.trim()}"), so that is what I'll do.`,
      `你拒绝了这次调用，要求改为${unitName}（“${reason.trim()}”），我照此来做。`,
    ),
    answer: (outcome) => say(lang, `As you asked, in ${unitName}: `, `按你的要求换算成${unitName}：`) + plan.answer(outcome),
  };
}
