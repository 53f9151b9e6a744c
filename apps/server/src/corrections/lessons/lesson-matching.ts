import { LESSONS_LIMITS, type CorrectionRecord } from '@interthought/protocol';
import { isLessonsGuidance } from './lesson-guidance.js';

/*
 * Which earlier corrections match a run (PROTOCOL.md §26.4): the overlap of the tasks' words
 * (Jaccard of their words: lower-cased words of 3 or more letters, character pairs in scripts without spaces), plus a bonus when the correction is
 * of a call of a tool this run may call. Pure, so the rule is tested without a store.
 */

/** What a matching `tool_call` correction adds to its task similarity: enough to rank it above a merely similar task, never enough to match alone. */
export const TOOL_BONUS = 0.25;

/** What a run is matched on. */
export interface LessonRun {
  readonly task: string;
  /** The tools the run's agent may call. */
  readonly tools: readonly string[];
  /** How many lessons at most (`lessonsMax`). */
  readonly max: number;
}

/** Scripts written without spaces between words: their runs are split into overlapping pairs of characters. */
const UNSPACED = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]+/gu;

/**
 * The words of a text, each once: lower-cased words of 3 or more letters, and in Chinese, Japanese
 * and Korean, which put no spaces between words, every pair of neighbouring characters of a run
 * (a run of one character is that character), so "巴黎今天天气" and "巴黎明天天气" share 巴黎, 天天, 天气.
 */
export function taskWords(text: string): Set<string> {
  const lower = text.toLowerCase();
  const words = new Set<string>();
  for (const run of lower.match(UNSPACED) ?? []) {
    const chars = [...run];
    if (chars.length === 1) words.add(run);
    for (let at = 0; at + 1 < chars.length; at++) words.add(chars[at]! + chars[at + 1]!);
  }
  for (const word of lower.replace(UNSPACED, ' ').match(/\p{L}{3,}/gu) ?? []) words.add(word);
  return words;
}

/** The Jaccard index of two word sets: shared words over all words (0 when both are empty). */
export function jaccard(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  let shared = 0;
  for (const word of a) if (b.has(word)) shared++;
  const all = a.size + b.size - shared;
  return all === 0 ? 0 : shared / all;
}

/**
 * Up to `run.max` of the candidates that match the run, best first and newest on ties. A
 * correction of an earlier lessons step is no lesson: it says what guidance was wanted, not how to work.
 */
export function pickLessons(run: LessonRun, candidates: readonly CorrectionRecord[]): CorrectionRecord[] {
  const words = taskWords(run.task);
  const tools = new Set(run.tools);
  const scored: Array<{ record: CorrectionRecord; score: number }> = [];
  for (const record of candidates) {
    if (record.kind === 'user_message' || isLessonsGuidance(record.before)) continue;
    const similarity = jaccard(words, taskWords(record.task));
    if (similarity < LESSONS_LIMITS.minTaskSimilarity) continue;
    const bonus = record.kind === 'tool_call' && record.tool !== undefined && tools.has(record.tool) ? TOOL_BONUS : 0;
    scored.push({ record, score: similarity + bonus });
  }
  scored.sort((a, b) => b.score - a.score || Date.parse(b.record.at) - Date.parse(a.record.at));
  return scored.slice(0, Math.max(0, run.max)).map(({ record }) => record);
}
