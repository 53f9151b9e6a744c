import { formatNumber } from '../../tools/number-format.js';
import { findUnit } from '../../tools/units.js';
import { formatWithUnit } from './answer-format.js';
import { readRequestFor, unitName, withUnitParts } from './answer-in-units.js';
import { questionPlan, withLeads } from './follow-up-plans.js';
import { say, type Lang } from './language.js';
import type { Plan, ReplyPlan, SolvePlan, StepValue } from './plan.js';
import { conversionPlan } from './recognize-conversion.js';
import type { UnitRequest } from './recognize-unit-request.js';
import type { Turn, TurnContext } from './recognize-follow-up.js';
import type { Question } from './follow-up-question.js';

/** The message as a quote: on one line. */
function quote(message: string): string {
  return message.replace(/\s+/gu, ' ').trim();
}

function asked(lang: Lang, request: UnitRequest): string {
  return request.kind === 'unit' ? unitName(lang, request.unit) : `"${request.name}"`;
}

/** A turn that computes nothing: what the agent made of the message, and why it gives no new number. */
function reply(lang: Lang, thought: string, answer: string): ReplyPlan {
  return { kind: 'reply', lang, thought, answer };
}

/**
 * The previous answer in the unit the message asks for ("What is that in kilograms?" after "625
 * grams", 「那是多少千克？」, "in miles per hour" after a speed): one unit converter call from that
 * answer. A unit it cannot give the answer in (no unit, another dimension, a unit it does not
 * know) is said plainly and the answer stands.
 */
function convertAnswer(context: TurnContext, request: UnitRequest, message: string, answer: StepValue): Turn {
  const { lang, question } = context;
  const keep = (plan: Plan): Turn => ({ plan, question, answer, text: question.text });
  const from = answer.unit === undefined ? undefined : findUnit(answer.unit);
  const shown = answer.value === undefined ? (answer.date ?? '') : formatWithUnit(lang, answer.value, answer.unit);
  const said = quote(message);
  const reading = answer.value === undefined ? { kind: 'cannot' as const, why: say(lang, 'a date has no unit to convert', '日期没有可以换算的单位') } : readRequestFor(lang, request, from);
  if (reading.kind === 'same') {
    return keep(
      reply(
        lang,
        say(lang, `You asked for the answer in ${unitName(lang, reading.to)}; it is in ${unitName(lang, reading.to)} already.`, `你要的是${unitName(lang, reading.to)}，答案本来就是${unitName(lang, reading.to)}。`),
        say(lang, `My answer is already in ${unitName(lang, reading.to)}: ${shown}.`, `我的答案本来就是${unitName(lang, reading.to)}：${shown}。`),
      ),
    );
  }
  if (reading.kind === 'cannot' || answer.value === undefined || !from) {
    const why = reading.kind === 'cannot' ? reading.why : '';
    return keep(
      reply(
        lang,
        say(lang, `You asked for my previous answer, ${shown}, in ${asked(lang, request)}, but ${why}.`, `你要我把上一个答案${shown}换算成${asked(lang, request)}，但${why}。`),
        say(lang, `I could not work out "${said}": ${why}. My previous answer, ${shown}, still stands.`, `我没能算出“${said}”：${why}。我上一个答案${shown}仍然有效。`),
      ),
    );
  }
  const plan = conversionPlan(lang, answer.value, from, reading.to);
  const inUnit: Question = { ...question, unit: reading.to.symbol };
  const thought = say(lang, `You asked for my previous answer, ${shown}, in ${unitName(lang, reading.to)}. `, `你要我把上一个答案${shown}换算成${unitName(lang, reading.to)}。`);
  // The text a corrected thought of this turn revises: the conversion as a question of its own.
  const text = say(lang, `How many ${reading.to.symbol} is ${formatNumber(answer.value)} ${from.symbol}?`, `${formatNumber(answer.value)}${from.names.zh}是多少${reading.to.names.zh}？`);
  return { plan: withLeads(plan, { thought }), question: inUnit, text };
}

/**
 * The plan without the conversion it ends with into the unit the question asked ("… in m/s?"):
 * the user's unit replaces that one, so km/h is not converted to m/s and back.
 */
function withoutFinalConversion(plan: SolvePlan): SolvePlan {
  const last = plan.steps[plan.steps.length - 1]?.call(undefined, []);
  if (last?.tool !== 'unit_converter' || plan.steps.length < 2 || plan.resultUnit === undefined) return plan;
  return { ...plan, steps: plan.steps.slice(0, -1) };
}

/**
 * A message asking for the answer in a unit: the previous answer converted, or, while the run is
 * still going (a steer at a step boundary, PROTOCOL.md "steer"), the question worked out again
 * and its result given in that unit. Without an answer or a question to work from, it says so.
 */
export function unitTurn(context: TurnContext, request: UnitRequest, message: string, usable: boolean): Turn {
  const { lang, question, answer, steering } = context;
  if (!steering && usable && answer) return convertAnswer(context, request, message, answer);
  const { unit: _earlier, ...inOwnUnit } = question;
  const base = questionPlan(lang, inOwnUnit);
  if (!steering || base.kind !== 'solve') {
    return {
      plan: reply(
        lang,
        say(lang, `You asked for the answer in ${asked(lang, request)}, but there is no earlier result to convert.`, `你要我换算成${asked(lang, request)}，但之前没有可以换算的结果。`),
        say(lang, `There is no earlier result, so I cannot give it in ${asked(lang, request)}; I have not computed anything.`, `之前没有得到结果，没法换算成${asked(lang, request)}，所以我没有计算。`),
      ),
      question,
      ...(answer ? { answer } : {}),
      text: question.text,
    };
  }
  const said = quote(message);
  const leads = {
    thought: say(lang, `You said "${said}", so I'll work the question out again and give the result in ${asked(lang, request)}. `, `你说“${said}”，我重新解题，并把结果换算成${asked(lang, request)}。`),
    answer: say(lang, `Following your instruction (${said}): `, `按照你的要求（${said}），`),
  };
  const next: Question = request.kind === 'unit' ? { ...inOwnUnit, unit: request.unit.symbol } : question;
  return { plan: withLeads(withUnitParts(lang, withoutFinalConversion(base), [{ request, text: message }]), leads), question: next, text: question.text };
}
