import type { Step } from '@interthought/protocol';
import { findExpression, operatorWordsToSymbols, toToolExpression } from './expression-finder.js';
import type { Lang } from './language.js';
import { openTaskPlan } from './open-task.js';
import type { PlannedCall, Plan } from './plan.js';
import { solve } from './problem-analyser.js';
import { readProblem } from './problem-facts.js';
import { recognizeConversion } from './recognize-conversion.js';
import { solveParts } from './sequential-parts.js';
import { unitPartsPlan } from './task-unit-parts.js';
import { normaliseProblemText } from './text-normalize.js';

/**
 * What a user-corrected thought or action changes:
 * - `call`: it states a new expression or conversion: that becomes the next tool call;
 * - `plan`: its numbers (or a rewritten problem) give a new plan from the start;
 * - `keep`: nothing the agent can compute with changed.
 */
export type Revision = { kind: 'call'; call: PlannedCall } | { kind: 'plan'; plan: Plan } | { kind: 'keep' };

const NUMBER = /\d+(?:\.\d+)?/gu;

function numbersIn(text: string): string[] {
  return normaliseProblemText(text).match(NUMBER) ?? [];
}

/**
 * Which numbers the user changed: position by position when the count is the same, or the one
 * number removed and the one added when a single number was replaced among other edits.
 */
export function changedNumbers(before: string, after: string): Map<string, string> {
  const old = numbersIn(before);
  const now = numbersIn(after);
  const changes = new Map<string, string>();
  if (old.length === now.length) {
    old.forEach((value, i) => {
      const replacement = now[i];
      if (replacement !== undefined && Number(replacement) !== Number(value) && !changes.has(value)) changes.set(value, replacement);
    });
    return changes;
  }
  const removed = old.filter((value) => !now.some((n) => Number(n) === Number(value)));
  const added = now.filter((value) => !old.some((o) => Number(o) === Number(value)));
  if (removed.length === 1 && added.length === 1) changes.set(removed[0] as string, added[0] as string);
  return changes;
}

/** A number not preceded by another digit: only the start of a digit run is tried, so a long run is read once. */
const N = String.raw`(?<![\d.])(\d+(?:\.\d+)?)`;
const NOTE_PATTERNS: ReadonlyArray<[RegExp, 'old-new' | 'new-old']> = [
  [new RegExp(String.raw`use\s+${N}\s+instead of\s+${N}`, 'iu'), 'new-old'],
  [new RegExp(String.raw`${N}\s+instead of\s+${N}`, 'iu'), 'new-old'],
  [new RegExp(String.raw`(?:replace|change)\s+${N}\s+(?:with|to|by)\s+${N}`, 'iu'), 'old-new'],
  [new RegExp(String.raw`${N}\s+(?:should be|is actually|is really|means)\s+${N}`, 'iu'), 'old-new'],
  [new RegExp(String.raw`${N}\s*(?:->|→|=>)\s*${N}`, 'u'), 'old-new'],
  [new RegExp(String.raw`${N},?\s+not\s+${N}`, 'iu'), 'new-old'],
  [new RegExp(String.raw`把\s*${N}\s*(?:改成|换成|改为|换为)\s*${N}`, 'u'), 'old-new'],
  [new RegExp(String.raw`用\s*${N}\s*(?:代替|替换|替代)\s*${N}`, 'u'), 'new-old'],
  // "不是12个，是20个": a measure word or short noun may follow each number.
  [new RegExp(String.raw`不是\s*${N}[^\d，,。]{0,3}[，,]?\s*(?:而)?是\s*${N}`, 'u'), 'old-new'],
  [new RegExp(String.raw`是\s*${N}[^\d，,。]{0,3}[，,]?\s*不是\s*${N}`, 'u'), 'new-old'],
  [new RegExp(String.raw`${N}\s*(?:应该是|应为|改为|改成)\s*${N}`, 'u'), 'old-new'],
];

/** Number replacements a correction note asks for: "use 20 instead of 12", "把12改成20". */
export function noteReplacements(note: string | undefined): Map<string, string> {
  const changes = new Map<string, string>();
  if (!note) return changes;
  const text = normaliseProblemText(note);
  for (const [pattern, order] of NOTE_PATTERNS) {
    const match = pattern.exec(text);
    if (!match?.[1] || !match[2]) continue;
    const [old, now] = order === 'old-new' ? [match[1], match[2]] : [match[2], match[1]];
    if (!changes.has(old)) changes.set(old, now);
  }
  return changes;
}

/** The task with numbers replaced (every occurrence of the old value, as a whole number). */
export function replaceNumbers(task: string, changes: ReadonlyMap<string, string>): string {
  // A number may end a sentence ("costs $1.5."): only a dot followed by a digit continues it.
  return normaliseProblemText(task).replace(/(?<![\d.])\d+(?:\.\d+)?(?!\d|\.\d)/gu, (digits) => {
    for (const [old, now] of changes) if (Number(old) === Number(digits)) return now;
    return digits;
  });
}

function expressionIn(text: string): string | undefined {
  const found = findExpression(operatorWordsToSymbols(normaliseProblemText(text)));
  return found === undefined ? undefined : toToolExpression(found);
}

function conversionIn(text: string, lang: Lang): PlannedCall | undefined {
  return recognizeConversion(readProblem(text, lang))?.steps[0]?.call(undefined);
}

/** The text the user put in quotes (an open task's topic as the thought names it). */
function quoted(text: string): string | undefined {
  // An opening quote ends the search from the one before it, so many unclosed quotes are read once.
  return /["“]([^"“”]+)["”]/u.exec(text)?.[1];
}

/** How a corrected thought or action changes the plan (see `Revision`). */
export function reviseFromStep(task: string, lang: Lang, step: Step, current: Plan): Revision {
  const now = step.content;
  const before = step.correction?.previousContent ?? '';
  const note = step.correction?.note;
  const expression = expressionIn(now);
  if (expression !== undefined && expression !== expressionIn(before)) return { kind: 'call', call: { tool: 'calculator', input: { expression } } };
  const conversion = conversionIn(now, lang);
  if (conversion && JSON.stringify(conversion) !== JSON.stringify(conversionIn(before, lang))) return { kind: 'call', call: conversion };
  // The rewritten text itself may say it ("use 20 instead of 12"), as may the note.
  const changes = new Map([...noteReplacements(note), ...noteReplacements(now), ...changedNumbers(before, now)]);
  if (changes.size > 0) {
    const replaced = replaceNumbers(task, changes);
    // A task that also asks for its answer in other units keeps asking it with the new numbers.
    const plan = unitPartsPlan(replaced, lang) ?? solve(replaced, lang) ?? solveParts(replaced, lang);
    if (plan) return { kind: 'plan', plan };
  }
  const rewritten = solve(now, lang) ?? solveParts(now, lang);
  if (rewritten && expression === undefined) return { kind: 'plan', plan: rewritten };
  const noted = note === undefined ? undefined : expressionIn(note);
  if (noted !== undefined) return { kind: 'call', call: { tool: 'calculator', input: { expression: noted } } };
  if (current.kind === 'advice' && step.kind === 'thought') {
    const topic = quoted(now);
    if (topic !== undefined && topic !== quoted(before)) return { kind: 'plan', plan: openTaskPlan(topic, readProblem(topic, lang)) };
  }
  return { kind: 'keep' };
}
