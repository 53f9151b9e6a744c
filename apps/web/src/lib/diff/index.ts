export { diffWords, tokenizeWords, type DiffPart } from './word-diff.js';
