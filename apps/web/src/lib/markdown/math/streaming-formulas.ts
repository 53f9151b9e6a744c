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

/** How far back an append is checked for a delimiter: a `$` or `\` ending the old text decides by the character after it. */
const OVERLAP = 2;
const DELIMITER = /[$\\`]/;

/** A split kept as its pieces up to the last plain run, and that run: an append that only extends the run leaves `head` as it was. */
export interface GrowingSplit {
  head: readonly StreamingPiece[];
  tail: string;
}

/**
 * `splitFormulas` for the text of one streaming step, which only grows: an append that holds no
 * `$`, backslash or backtick (most deltas) cannot open, close or end anything, so it only extends
 * the last plain run and costs its own length, not a scan of the whole text; `head` keeps its
 * identity then, so nothing before the run is drawn again. Anything else (or text that did not
 * grow from the last) is split afresh.
 */
export class GrowingFormulas {
  #text = '';
  #split: GrowingSplit = { head: [], tail: '' };

  split(text: string): GrowingSplit {
    const previous = this.#text;
    if (text === previous) return this.#split;
    const grown = previous !== '' && text.length > previous.length && !DELIMITER.test(text.slice(previous.length - OVERLAP)) && text.startsWith(previous);
    this.#split = grown ? { head: this.#split.head, tail: this.#split.tail + text.slice(previous.length) } : headAndTail(splitFormulas(text));
    this.#text = text;
    return this.#split;
  }
}

function headAndTail(pieces: StreamingPiece[]): GrowingSplit {
  const last = pieces[pieces.length - 1];
  return last && 'text' in last ? { head: pieces.slice(0, -1), tail: last.text } : { head: pieces, tail: '' };
}
