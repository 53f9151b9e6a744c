import { inlineMathStart, matchInlineMath, mayContainMath } from './math-syntax.js';

/** A stretch of streaming text: plain, or a complete formula. */
export type StreamingPiece = { text: string } | { tex: string; display: boolean; raw: string };

/** The end of a code span or fence starting at `at` (its closing backticks, or the text's end while unclosed). */
function codeEnd(text: string, at: number): number {
  let run = at;
  while (text[run] === '`') run++;
  const ticks = text.slice(at, run);
  const close = text.indexOf(ticks, run);
  return close < 0 ? text.length : close + ticks.length;
}

/**
 * Split text that is still being written into plain runs and the formulas that are already
 * complete, the way markdown will once the step is done: nothing inside backticks (code spans and
 * fences, closed or not) is math, and an unclosed formula stays plain text.
 */
export function splitFormulas(text: string): StreamingPiece[] {
  if (!mayContainMath(text)) return [{ text }];
  const pieces: StreamingPiece[] = [];
  let plainFrom = 0;
  let i = 0;
  while (i < text.length) {
    const tick = text.indexOf('`', i);
    const rest = text.slice(i, tick < 0 ? text.length : tick);
    const start = inlineMathStart(rest);
    if (start < 0) {
      if (tick < 0) break;
      i = codeEnd(text, tick);
      continue;
    }
    const at = i + start;
    const found = matchInlineMath(text.slice(at));
    // A formula may not run into a code span: the first backtick after it ends the search.
    if (found && (tick < 0 || at + found.raw.length <= tick)) {
      if (at > plainFrom) pieces.push({ text: text.slice(plainFrom, at) });
      pieces.push({ tex: found.tex, display: found.display, raw: found.raw });
      i = plainFrom = at + found.raw.length;
    } else i = at + (text.startsWith('$$', at) ? 2 : 1);
  }
  if (plainFrom < text.length) pieces.push({ text: text.slice(plainFrom) });
  return pieces;
}
