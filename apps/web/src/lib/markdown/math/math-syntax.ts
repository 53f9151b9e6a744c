/**
 * Where a formula starts and ends in agent text: `$…$` and `\(…\)` inline, `$$…$$` and `\[…\]` for
 * display. Only complete formulas match, so text still being written (`$x^2 +`) stays plain text
 * until its closing delimiter arrives.
 *
 * A `$` is also money. The pandoc rule tells them apart: an opening `$` is followed by a non-space,
 * a closing `$` is preceded by a non-space and not followed by a digit; and since TeX itself cannot
 * have a bare `$` inside inline math, the first unescaped `$` after the opener must be a valid
 * closer or there is no formula. So `$40 and $5`, `costs $5.`, `$5-$10` and `US$5` stay prose.
 */

/** A complete formula found at the start of some text. */
export interface MathMatch {
  /** The source it spans, delimiters included. */
  raw: string;
  /** The TeX between the delimiters. */
  tex: string;
  display: boolean;
}

/** Longer formulas are shown as their source: KaTeX's cost grows with the input and agents are untrusted. */
export const MAX_TEX_LENGTH = 4_000;

const isSpace = (char: string | undefined) => char === undefined || /\s/.test(char);
const isDigit = (char: string | undefined) => char !== undefined && char >= '0' && char <= '9';

/** The index of the next `$` at or after `from` that no backslash escapes, or -1. */
function nextDollar(text: string, from: number): number {
  for (let i = from; i < text.length; i++) {
    const char = text[i];
    if (char === '\\') i++;
    else if (char === '$') return i;
  }
  return -1;
}

function matched(raw: string, tex: string, display: boolean): MathMatch | undefined {
  const trimmed = tex.trim();
  // A backtick would mean the "formula" runs into a code span (`US$5 in \`$HOME$\``): TeX math has none.
  if (trimmed === '' || trimmed.length > MAX_TEX_LENGTH || trimmed.includes('`')) return undefined;
  return { raw, tex: trimmed, display };
}

/** `$…$` by the pandoc rule, at the start of `src`. */
function dollarInline(src: string): MathMatch | undefined {
  if (src[0] !== '$' || src[1] === '$' || isSpace(src[1])) return undefined;
  const close = nextDollar(src, 1);
  if (close < 0) return undefined;
  if (isSpace(src[close - 1]) || isDigit(src[close + 1])) return undefined;
  // A bare newline inside inline math is allowed (a soft break), a blank line is not (marked keeps it out).
  return matched(src.slice(0, close + 1), src.slice(1, close), false);
}

/** `open…close` with a literal closing delimiter (`$$`, `\)`, `\]`), at the start of `src`. */
function delimited(src: string, open: string, close: string, display: boolean): MathMatch | undefined {
  if (!src.startsWith(open)) return undefined;
  const end = src.indexOf(close, open.length);
  if (end < 0) return undefined;
  return matched(src.slice(0, end + close.length), src.slice(open.length, end), display);
}

/** A complete formula at the very start of `src` (inline text), or undefined. */
export function matchInlineMath(src: string): MathMatch | undefined {
  if (src.startsWith('$$')) return delimited(src, '$$', '$$', true);
  if (src.startsWith('$')) return dollarInline(src);
  if (src.startsWith('\\(')) return delimited(src, '\\(', '\\)', false);
  if (src.startsWith('\\[')) return delimited(src, '\\[', '\\]', true);
  return undefined;
}

/** Where an inline formula could start in `src` (a `$` or `\(` / `\[` no backslash escapes), or -1. */
export function inlineMathStart(src: string): number {
  for (let i = 0; i < src.length; i++) {
    const char = src[i];
    if (char === '$') return i;
    if (char === '\\') {
      const next = src[i + 1];
      if (next === '(' || next === '[') return i;
      i++;
    }
  }
  return -1;
}

const BLOCK = /^(?:\$\$([\s\S]+?)\$\$|\\\[([\s\S]+?)\\\])[ \t]*(?:\n+|$)/;

/** A display formula that is a block of its own (`$$` or `\[` at a line start, closed, then the line ends). */
export function matchBlockMath(src: string): { raw: string; tex: string } | undefined {
  const found = BLOCK.exec(src);
  if (!found) return undefined;
  const tex = (found[1] ?? found[2] ?? '').trim();
  if (tex === '' || tex.length > MAX_TEX_LENGTH) return undefined;
  return { raw: found[0], tex };
}

/** Where a block formula could start in `src` (a line beginning with `$$` or `\[`), or -1. */
export function blockMathStart(src: string): number {
  const found = /(?:^|\n)(?:\$\$|\\\[)/.exec(src);
  if (!found) return -1;
  return found[0].startsWith('\n') ? found.index + 1 : found.index;
}

/** A cheap first look: can this text hold a formula at all? (Most steps have no `$` or `\(`.) */
export function mayContainMath(text: string): boolean {
  return text.includes('$') || text.includes('\\(') || text.includes('\\[');
}
