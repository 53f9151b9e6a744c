import { diffTokens, type DiffPart } from './edit-script.js';

// Numbers (with their decimal point), single CJK characters (Chinese and Japanese are written
// without spaces, so a character is the smallest unit a reader compares), words, runs of
// whitespace, and single punctuation marks. Together they cover every character.
const CJK = '\\p{Script=Han}\\p{Script=Hiragana}\\p{Script=Katakana}';
const TOKEN = new RegExp(
  `\\p{N}+(?:[.,:]\\p{N}+)*|[${CJK}]|(?:(?![${CJK}])[\\p{L}\\p{M}\\p{N}_'’])+|\\s+|[^\\s]`,
  'gu',
);

/** Split text into diff tokens; joining them gives the text back. */
export function tokenizeWords(text: string): string[] {
  return text.match(TOKEN) ?? [];
}

/** A word-level diff of `before` → `after`: equal, deleted and inserted runs, in reading order. */
export function diffWords(before: string, after: string): DiffPart[] {
  return diffTokens(tokenizeWords(before), tokenizeWords(after), true);
}
