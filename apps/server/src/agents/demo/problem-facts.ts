import { languageOf, type Lang } from './language.js';
import { findQuantities, type Quantity } from './quantities.js';
import { normaliseProblemText } from './text-normalize.js';

/** A problem as the recognisers read it. */
export interface ProblemFacts {
  /** The language of the answer (always the task's, even when reading a corrected thought). */
  lang: Lang;
  /** The normalised text (digits, %, no thousands separators). */
  text: string;
  /** `text` in lower case, for keyword tests. */
  lower: string;
  quantities: Quantity[];
}

/** Read a problem text; `lang` defaults to the text's own language. */
export function readProblem(text: string, lang: Lang = languageOf(text)): ProblemFacts {
  const normalised = normaliseProblemText(text);
  return { lang, text: normalised, lower: normalised.toLowerCase(), quantities: findQuantities(normalised) };
}

/** Whether the (lower-case) text contains any of the keywords; English ones match whole words. */
export function mentions(facts: Pick<ProblemFacts, 'lower'>, keywords: readonly string[]): boolean {
  return keywords.some((keyword) => {
    if (!/^[a-z]/u.test(keyword)) return facts.lower.includes(keyword);
    for (let at = facts.lower.indexOf(keyword); at >= 0; at = facts.lower.indexOf(keyword, at + 1)) {
      const end = at + keyword.length;
      if (!/[a-z]/u.test(facts.lower[at - 1] ?? '') && !/[a-z]/u.test(facts.lower[end] ?? '')) return true;
    }
    return false;
  });
}

/** Plain numbers: no percent sign, no date part. */
export function plainQuantities(facts: ProblemFacts): Quantity[] {
  return facts.quantities.filter((quantity) => !quantity.percent);
}

/** The two plain numbers of a task that has exactly two, in the order written; otherwise undefined. */
export function plainPair(facts: ProblemFacts): [Quantity, Quantity] | undefined {
  const [first, second, ...rest] = plainQuantities(facts);
  return first && second && rest.length === 0 ? [first, second] : undefined;
}
