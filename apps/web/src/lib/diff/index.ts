export { diffWords, tokenizeWords } from './word-diff.js';
export { diffText, suggestGranularity, type DiffGranularity, type TextDiffOptions } from './text-diff.js';
export type { DiffPart } from './edit-script.js';
