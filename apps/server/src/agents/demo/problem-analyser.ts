import type { Lang } from './language.js';
import { droppedQuantities } from './coverage.js';
import { partialPlanRefusal, unsurePlan } from './decline-plans.js';
import { openTaskPlan } from './open-task.js';
import type { Plan, SolvePlan } from './plan.js';
import { readProblem, type ProblemFacts } from './problem-facts.js';
import type { Quantity } from './quantities.js';
import { recognizeExpression, recognizeOperatorWords } from './recognize-arithmetic.js';
import { recognizeConversion } from './recognize-conversion.js';
import { recognizeDate } from './recognize-date.js';
import { recognizeDiscount } from './recognize-discount.js';
import { recognizePerEach } from './recognize-per-each.js';
import { recognizePercentOf, recognizeWhatPercent } from './recognize-percent.js';
import { recognizePercentChange, recognizeRemainder } from './recognize-asked-quantity.js';
import { recognizeProportion } from './recognize-proportion.js';
import { recognizeRate } from './recognize-rate.js';
import { recognizeRateLegs } from './recognize-rate-legs.js';
import { recognizeAmbiguousReading } from './recognize-ambiguous-reading.js';
import { recognizeMissingQuantity } from './recognize-missing-quantity.js';
import { recognizeAverage, recognizeDifference, recognizeStory } from './recognize-story.js';

/**
 * The recognisers, most specific first: a date or a written-out expression is unambiguous; a
 * bare story of gains and losses is the loosest reading, tried last.
 */
const RECOGNISERS: ReadonlyArray<(facts: ProblemFacts) => SolvePlan | undefined> = [
  recognizeDate,
  recognizeExpression,
  recognizeConversion,
  recognizeRemainder,
  recognizePercentChange,
  recognizePercentOf,
  recognizeWhatPercent,
  recognizeDiscount,
  recognizeRateLegs,
  recognizeRate,
  recognizeProportion,
  recognizeAverage,
  recognizeDifference,
  recognizePerEach,
  recognizeOperatorWords,
  recognizeStory,
];

/** What the recognisers made of a text: a plan that uses every number, else the first that leaves some out. */
function recognise(facts: ProblemFacts): { plan?: SolvePlan; partial?: { plan: SolvePlan; dropped: Quantity[] } } {
  let partial: { plan: SolvePlan; dropped: Quantity[] } | undefined;
  for (const recogniser of RECOGNISERS) {
    const plan = recogniser(facts);
    if (!plan) continue;
    const dropped = droppedQuantities(facts, plan);
    if (dropped.length === 0) return { plan };
    partial ??= { plan, dropped };
  }
  return partial ? { partial } : {};
}

/** A plan to compute the answer to `text` that uses every number in it, if some recogniser understands it. */
export function solve(text: string, lang: Lang): SolvePlan | undefined {
  return recognise(readProblem(text, lang)).plan;
}

/**
 * How the demo agent will answer a task: a question to the user where one settles it (which
 * reading is meant, a number it lacks); a solve plan that uses every number; a refusal that
 * names what a partial plan would leave out; an honest "unsure" when numbers fit no pattern; or an open-task plan.
 */
export function analyseTask(task: string, lang: Lang): Plan {
  const facts = readProblem(task, lang);
  // Where a question to the user settles the task, the agent asks rather than guesses (PROTOCOL.md §25.1).
  const ask = recognizeAmbiguousReading(facts, analyseTask) ?? recognizeMissingQuantity(facts, analyseTask);
  if (ask) return ask;
  const { plan, partial } = recognise(facts);
  if (plan) return plan;
  if (partial) return partialPlanRefusal(facts, partial.plan, partial.dropped);
  return facts.quantities.length > 0 ? unsurePlan(facts) : openTaskPlan(task, facts);
}
