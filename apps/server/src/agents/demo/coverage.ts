import type { SolvePlan } from './plan.js';
import type { ProblemFacts } from './problem-facts.js';
import type { Quantity } from './quantities.js';

/**
 * The numbers a plan puts into its tool calls (as the calls read before any tool ran), plus
 * those it accounts for in another form (`uses`, e.g. 打8折 computed as 80%).
 */
function numbersUsed(plan: SolvePlan): Set<number> {
  const used = new Set<number>(plan.uses ?? []);
  for (const step of plan.steps) {
    const input = JSON.stringify(step.call(undefined, []).input);
    for (const digits of input.match(/\d+(?:\.\d+)?/gu) ?? []) used.add(Number(digits));
  }
  return used;
}

/** The task's numbers a plan leaves out: answering with such a plan would present a partial result as the answer. */
export function droppedQuantities(facts: ProblemFacts, plan: SolvePlan): Quantity[] {
  const used = numbersUsed(plan);
  return facts.quantities.filter((quantity) => !used.has(Math.abs(quantity.value)));
}
