import { joinedAnswer, listedParts, partName } from './delegation-narration.js';
import { say, type Lang } from './language.js';
import type { Outcome, Plan, PlanStep, SolvePlan, StepValue } from './plan.js';
import { analyseTask, solve } from './problem-analyser.js';
import { splitTask } from './task-parts.js';
import { unitPartsPlan } from './task-unit-parts.js';

/**
 * Without sub-agents (a server without the `delegate` tool), a multi-part task is answered part
 * after part on one chain: one plan of every part's steps in turn, whose answer joins the parts'.
 */

/** A part's step inside the joined plan: it sees only its own part's values, and no previous value at the part's start. */
function scopedStep(step: PlanStep, first: boolean, offset: number, preview: string | undefined): PlanStep {
  const scoped: PlanStep = { call: (previous, values) => step.call(first ? undefined : previous, values?.slice(offset)) };
  const shown = preview ?? step.preview;
  if (shown !== undefined) scoped.preview = shown;
  return scoped;
}

/** What part `index` answers, from the values its steps produced on the chain. */
function partAnswer(plan: SolvePlan, offset: number, outcome: Outcome): string {
  const values = outcome.values ?? [];
  const last = offset + plan.steps.length - 1;
  const value: StepValue | undefined = values[last];
  if (value === undefined) return say(plan.lang, 'No tool has produced its result.', '还没有工具给出它的结果。');
  const previous = plan.steps.length > 1 ? values[last - 1] : undefined;
  const call = plan.steps[plan.steps.length - 1]?.call(previous, values.slice(offset));
  // Only a chain that went as planned lets the answer restate the planned call.
  return plan.answer({ ...value, ...(call ? { call } : {}), fromTool: outcome.asPlanned, asPlanned: outcome.asPlanned });
}

/** The joined plan of independent parts, each of which `solve` plans. */
export function sequentialPlan(lang: Lang, parts: readonly string[]): SolvePlan | undefined {
  const plans = parts.map((part) => solve(part, lang));
  if (plans.some((plan) => plan === undefined)) return undefined;
  const solved = plans as SolvePlan[];
  const offsets = solved.map((_, index) => solved.slice(0, index).reduce((sum, plan) => sum + plan.steps.length, 0));
  const steps = solved.flatMap((plan, index) =>
    plan.steps.map((step, j) =>
      scopedStep(step, j === 0, offsets[index] ?? 0, j === 0 && index > 0 ? say(lang, `Then I'll answer ${partName(lang, index)}.`, `然后解答${partName(lang, index)}。`) : undefined),
    ),
  );
  const list = parts.map((part, i) => `${i + 1}. ${part}`).join('\n');
  return {
    kind: 'solve',
    lang,
    thought: say(
      lang,
      `This task has ${parts.length} independent parts; I'll answer them one after another:\n${list}`,
      `这道题有 ${parts.length} 个互不相关的部分，我逐个解答：\n${list}`,
    ),
    approach: solved[0]?.approach ?? '',
    steps,
    uses: solved.flatMap((plan) => plan.uses ?? []),
    answer: (outcome) =>
      joinedAnswer(
        lang,
        solved.map((plan, index) => ({ name: partName(lang, index), task: parts[index] ?? '', answer: partAnswer(plan, offsets[index] ?? 0, outcome) })),
        'sequential',
      ),
  };
}

/**
 * How the agent plans a task it answers itself: part after part when it has independent parts;
 * a question then its result in each unit its last parts ask for ("…, and what is that in kilograms?").
 * With sub-agents at hand such a task is delegated instead (delegation-state.ts reads it first),
 * so this plan is for a server without them, or a chain that was begun without them.
 */
export function planTask(task: string, lang: Lang): Plan {
  const parts = splitTask(task, lang);
  return (parts && sequentialPlan(lang, parts)) ?? unitPartsPlan(task, lang) ?? analyseTask(task, lang);
}

/** A plan for a text of several independent parts (a numbered list, as a rewritten thought has them, or questions in a row). */
export function solveParts(text: string, lang: Lang): SolvePlan | undefined {
  const listed = listedParts(text);
  const parts = listed.length >= 2 ? listed : splitTask(text, lang);
  return parts && sequentialPlan(lang, parts);
}
