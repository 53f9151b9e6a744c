import type { StepKind } from '@interthought/protocol';
import { formatToolInput } from './correction-draft.svelte.js';

/** Kinds whose text is data (JSON input, tool output): shown in monospace, not as markdown. */
export function isMonospaceKind(kind: StepKind): boolean {
  return kind === 'tool_call' || kind === 'observation';
}

/** The text as displayed: tool input pretty-printed, everything else as written. */
export function displayText(kind: StepKind, content: string): string {
  return kind === 'tool_call' ? formatToolInput(content) : content;
}

/** Roughly eight lines of text: beyond this a completed step starts collapsed behind "show more". */
const COLLAPSE_LINES = 8;
const CHARS_PER_LINE = 90;

/** Whether a text is long enough to collapse: more than ~8 visual lines at the column's width. */
export function isLongText(text: string): boolean {
  let lines = 0;
  for (const line of text.split('\n')) {
    lines += Math.max(1, Math.ceil(line.length / CHARS_PER_LINE));
    if (lines > COLLAPSE_LINES) return true;
  }
  return false;
}
