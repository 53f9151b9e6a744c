import { withUnitParts, type UnitPart } from './answer-in-units.js';
import type { Lang } from './language.js';
import type { SolvePlan } from './plan.js';
import { solve } from './problem-analyser.js';
import { readUnitRequest } from './recognize-unit-request.js';
import { MAX_TASK_PARTS, taskPieces } from './task-parts.js';

/**
 * A task whose last parts ask for its answer in other units: "A recipe needs 250 g flour for 4
 * people. How much for 10 people, and what is that in kilograms?", "…? And in pounds?",
 * 「4个人需要250克面粉，10个人需要多少？换算成千克是多少？」. Those parts lean on the answer, so the
 * task is no list of independent questions (task-parts.ts): the agent solves the question
 * before them, then converts its result for each. Undefined when the task has no such part or
 * the question before them is not one the agent can solve.
 */
export function unitPartsPlan(task: string, lang: Lang): SolvePlan | undefined {
  const pieces = taskPieces(task, lang);
  if (pieces.length < 2 || pieces.length > MAX_TASK_PARTS) return undefined;
  const parts: UnitPart[] = [];
  let question = pieces.length;
  while (question > 1) {
    const text = pieces[question - 1] ?? '';
    const request = readUnitRequest(text);
    if (!request) break;
    parts.unshift({ request, text });
    question -= 1;
  }
  if (parts.length === 0) return undefined;
  const base = solve(pieces.slice(0, question).join(lang === 'zh' ? '' : ' '), lang);
  return base && withUnitParts(lang, base, parts);
}
