import type { UnitDefinition } from '../../tools/units.js';
import { findUnitMentions } from './quantities.js';
import { normaliseProblemText } from './text-normalize.js';

/**
 * A request for the answer in another unit, said on its own: a part of a task ("…, and what is
 * that in kilograms?", "…? And in pounds?", 「换算成千克是多少？」), a follow-up ("What is that in
 * kilograms?", 「那是多少千克？」) or a steer ("answer in km/h", 「请用千米每小时回答」).
 * - `unit`: the unit asked for;
 * - `unknown`: "What is that in furlongs?": a unit the agent does not know, named as written.
 */
export type UnitRequest = { kind: 'unit'; unit: UnitDefinition } | { kind: 'unknown'; name: string };

/**
 * The words such a request is made of besides its unit. A text with any other word is something
 * else ("What is its speed in m/s?" asks about speed), so a request is only read where nothing
 * but the unit is asked: the strictness keeps whole questions away from this reading.
 */
const EN_FILLER = new RegExp(
  String.raw`\b(?:what(?:'s|s)?|how|much|many|is|are|was|would|be|that|it|this|those|the|answer|result|amount|please|pls|and|also|now|then|in|into|to|as|convert(?:ed)?|express(?:ed)?|give|giving|show|tell|me|us|instead|use|using|units?|of|ok|okay|can|could|you|do|again)\b`,
  'giu',
);
const ZH_FILLER = /请|麻烦|帮我|给我|你|我|能|可以|再|还|那么|那|这个|这|它|结果|答案|数量|用|以|按|回答|表示|给出|换算|转换|换成|改成|改为|改用|成|为|是|多少|等于|合|折合|的话|的|呢|吗|一下|单位|然后|另外|还有|和|个|来|算/gu;
const PUNCTUATION = /[\s?？!！.。,，、;；:："“”'‘’()（）]+/gu;

/** "in furlongs", "in cubits per hour": where no known unit is named, the word after "in" names the one asked for. */
const UNKNOWN_UNIT = /\b(?:in|into)\s+([a-z]+(?:\s+per\s+[a-z]+)?)\s*[?.!]*\s*$/iu;

/** Longer than any way of asking for a unit ("And what would that be in kilometres per hour, please?"). */
const MAX_REQUEST_CHARS = 80;

const REFERS_TO_ANSWER = /\b(?:that|it|this)\b/iu;

/** Read a text as a request for the answer in another unit (see `UnitRequest`), or undefined when it is anything else. */
export function readUnitRequest(text: string): UnitRequest | undefined {
  // Such a request is a few words: a long text is something else, and is not read twice over.
  if (text.length > MAX_REQUEST_CHARS) return undefined;
  const normalised = normaliseProblemText(text);
  // A number makes it a question of its own ("How many grams is 5 pounds?") or a change of one.
  if (/\d/u.test(normalised)) return undefined;
  const mentions = findUnitMentions(normalised);
  let rest = '';
  let at = 0;
  for (const mention of mentions) {
    rest += `${normalised.slice(at, mention.start)} `;
    at = mention.end;
  }
  rest += normalised.slice(at);
  // Only a request about the answer ("what is that in …") names a unit this way: "in total" is no unit.
  const unknown = mentions.length === 0 && REFERS_TO_ANSWER.test(normalised) ? UNKNOWN_UNIT.exec(normalised)?.[1] : undefined;
  if (unknown !== undefined) rest = rest.replace(UNKNOWN_UNIT, ' ');
  const left = rest.replace(EN_FILLER, ' ').replace(ZH_FILLER, ' ').replace(PUNCTUATION, '');
  if (left.length > 0) return undefined;
  // Two different units ("kilograms or pounds?") do not say which one is meant.
  const units = new Set(mentions.map((mention) => mention.unit));
  const [only] = units;
  if (units.size === 1 && only) return { kind: 'unit', unit: only };
  return units.size === 0 && unknown !== undefined ? { kind: 'unknown', name: unknown } : undefined;
}
