import { diffTokens, pushPart, type DiffPart } from './edit-script.js';
import { slideToBoundaries } from './slide-to-boundaries.js';
import { diffWords, tokenizeWords } from './word-diff.js';

/** How finely a diff marks changes: whole words, or the characters inside a changed word. */
export type DiffGranularity = 'word' | 'char';

export interface TextDiffOptions {
  granularity: DiffGranularity;
  /** Align whole lines first (JSON and other structured text), then diff inside changed lines. */
  lines?: boolean;
}

/** Changed stretches longer than this are not refined further: their finer diff would be noise and cost. */
const REFINE_LIMIT = 2_000;

const splitLines = (text: string): string[] => text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
const splitChars = (text: string): string[] => Array.from(text);

interface Refinement {
  split: (text: string) => string[];
  /** Whether a lone space between two changed tokens joins the change (words, not characters). */
  bridgeSpaces: boolean;
  /** Whether the finer diff reads better than the coarse pair it would replace. */
  worthIt: (fine: DiffPart[]) => boolean;
}

/**
 * Fold an equal run of one or two characters that sits between two changes into them:
 * "rec[-i]e[+i]ve" reads better as "rec[-ie][+ei]ve", one change a reader takes in at once.
 */
export function absorbShortEqualities(parts: DiffPart[]): DiffPart[] {
  const out: DiffPart[] = [];
  let deleted = '';
  let inserted = '';
  const flush = () => {
    pushPart(out, 'delete', deleted);
    pushPart(out, 'insert', inserted);
    deleted = '';
    inserted = '';
  };
  parts.forEach((part, i) => {
    const between = i > 0 && i < parts.length - 1 && parts[i + 1]!.op !== 'equal';
    if (part.op === 'delete') deleted += part.text;
    else if (part.op === 'insert') inserted += part.text;
    else if (between && (deleted || inserted) && Array.from(part.text).length <= 2 && !/\s/.test(part.text)) {
      deleted += part.text;
      inserted += part.text;
    } else {
      flush();
      pushPart(out, 'equal', part.text);
    }
  });
  flush();
  return out;
}

/** Re-diff every "deleted X, inserted Y" pair of `parts` with a finer tokenizer. */
function refine(parts: DiffPart[], { split, bridgeSpaces, worthIt }: Refinement): DiffPart[] {
  const out: DiffPart[] = [];
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!;
    const next = parts[i + 1];
    if (part.op === 'delete' && next?.op === 'insert' && part.text.length <= REFINE_LIMIT && next.text.length <= REFINE_LIMIT) {
      const tokens = diffTokens(split(part.text), split(next.text), bridgeSpaces);
      const fine = split === splitChars ? absorbShortEqualities(tokens) : tokens;
      const chosen = worthIt(fine) ? fine : [part, next];
      for (const run of chosen) pushPart(out, run.op, run.text);
      i++;
    } else pushPart(out, part.op, part.text);
  }
  return out;
}

/** The share of the longer side that the finer diff keeps as equal. */
const equalShare = (parts: DiffPart[]) => {
  let equal = 0;
  let deleted = 0;
  let inserted = 0;
  for (const part of parts) {
    if (part.op === 'equal') equal += part.text.length;
    else if (part.op === 'delete') deleted += part.text.length;
    else inserted += part.text.length;
  }
  const longer = equal + Math.max(deleted, inserted);
  return longer === 0 ? 0 : equal / longer;
};

const DIGIT = /\p{N}/u;

/**
 * Characters inside a changed word help only when the words still share most of their letters
 * ("recieve" → "receive"); between unrelated words they scatter single letters. A number is read
 * whole: "0.2" → "0.15" marked as "0.[2][15]" would read as 0.215.
 */
const sharesEnough = (fine: DiffPart[]) => !fine.some((part) => part.op !== 'equal' && DIGIT.test(part.text)) && equalShare(fine) >= 0.4;

/** The diff of `before` → `after` at the given granularity, in reading order. */
export function diffText(before: string, after: string, { granularity, lines = false }: TextDiffOptions): DiffPart[] {
  let parts = lines
    ? refine(diffTokens(splitLines(before), splitLines(after), false), { split: tokenizeWords, bridgeSpaces: true, worthIt: () => true })
    : diffWords(before, after);
  if (granularity === 'char') parts = refine(parts, { split: splitChars, bridgeSpaces: false, worthIt: sharesEnough });
  return lines ? slideToBoundaries(parts) : parts;
}

/** A changed stretch this short, inside one word, is a small edit best shown character by character. */
const SHORT_EDIT = 24;

/**
 * Character level for short edits (a few characters changed inside words: "4" → "5",
 * "recieve" → "receive"), word level for prose (any change that spans a space).
 */
export function suggestGranularity(before: string, after: string): DiffGranularity {
  const parts = diffWords(before, after);
  let changes = 0;
  for (const part of parts) {
    if (part.op === 'equal') continue;
    if (/\s/.test(part.text) || part.text.length > SHORT_EDIT) return 'word';
    changes++;
  }
  return changes > 0 && changes <= 6 ? 'char' : 'word';
}
