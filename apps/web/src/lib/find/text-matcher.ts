/** Where a query occurs in a text: [start, end) offsets into that text, in order, not overlapping. */
export type MatchRange = readonly [start: number, end: number];

/** How find compares: case-insensitive unless asked (Unicode case folding, so "Ä" finds "ä"). */
export interface MatchOptions {
  matchCase?: boolean;
}

/** A compiled query: the same rule counts hits in the session's state and paints them in the drawn cards. */
export interface TextMatcher {
  readonly query: string;
  readonly matchCase: boolean;
  /** Every occurrence in `text`, offsets into `text` itself (never into a lower-cased copy). */
  ranges(text: string): MatchRange[];
  /** How many times the query occurs, without building the ranges. */
  count(text: string): number;
}

// Escaped for a `u` regular expression, where only syntax characters may be escaped.
const SYNTAX = /[\\^$.*+?()[\]{}|/]/g;

/** A matcher for `query`, or null for an empty query (nothing to find). */
export function createMatcher(query: string, options: MatchOptions = {}): TextMatcher | null {
  if (query === '') return null;
  const matchCase = options.matchCase === true;
  // A regular expression with `i` folds case on the original text, so offsets stay true for any script.
  const pattern = new RegExp(query.replace(SYNTAX, '\\$&'), matchCase ? 'gu' : 'giu');
  // A query without letters of two cases needs no regular expression: indexOf is several times faster.
  const plain = matchCase || query.toLowerCase() === query.toUpperCase();
  return {
    query,
    matchCase,
    ranges(text) {
      const found: MatchRange[] = [];
      if (plain) {
        for (let at = text.indexOf(query); at !== -1; at = text.indexOf(query, at + query.length)) found.push([at, at + query.length]);
        return found;
      }
      pattern.lastIndex = 0;
      for (let match = pattern.exec(text); match !== null; match = pattern.exec(text)) found.push([match.index, match.index + match[0].length]);
      return found;
    },
    count(text) {
      if (!plain) return this.ranges(text).length;
      let count = 0;
      for (let at = text.indexOf(query); at !== -1; at = text.indexOf(query, at + query.length)) count++;
      return count;
    },
  };
}
