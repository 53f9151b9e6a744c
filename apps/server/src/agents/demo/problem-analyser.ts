import type { Lang } from './language.js';
import { openTaskPlan, unsurePlan } from './open-task.js';
import type { Plan, SolvePlan } from './plan.js';
import { readProblem, type ProblemFacts } from './problem-facts.js';
import { recognizeExpression, recognizeOperatorWords } from './recognize-arithmetic.js';
import { recognizeConversion } from './recognize-conversion.js';
import { recognizeDate } from './recognize-date.js';
import { recognizeDiscount } from './recognize-discount.js';
import { recognizePerEach } from './recognize-per-each.js';
import { recognizePercentOf, recognizeWhatPercent } from './recognize-percent.js';
import { recognizeRate } from './recognize-rate.js';
import { recognizeAverage, recognizeDifference, recognizeStory } from './recognize-story.js';

/**
 * The recognisers, most specific first: a date or a written-out expression is unambiguous; a
 * bare story of gains and losses is the loosest reading, tried last.
 */
const RECOGNISERS: ReadonlyArray<(facts: ProblemFacts) => SolvePlan | undefined> = [
  recognizeDate,
  recognizeExpression,
  recognizeConversion,
  recognizePercentOf,
  recognizeWhatPercent,
  recognizeDiscount,
  recognizeRate,
  recognizeAverage,
  recognizeDifference,
  recognizePerEach,
  recognizeOperatorWords,
  recognizeStory,
];

/** A plan to compute the answer to `text`, if some recogniser understands it. */
export function solve(text: string, lang: Lang): SolvePlan | undefined {
  const facts = readProblem(text, lang);
  for (const recognise of RECOGNISERS) {
    const plan = recognise(facts);
    if (plan) return plan;
  }
  return undefined;
}

/** How the demo agent will answer a task: a solve plan, an honest "unsure" when numbers do not fit a pattern, or an open-task plan. */
export function analyseTask(task: string, lang: Lang): Plan {
  const plan = solve(task, lang);
  if (plan) return plan;
  const facts = readProblem(task, lang);
  return facts.quantities.length > 0 ? unsurePlan(facts) : openTaskPlan(task, facts);
}
