import { escapeHtml } from '../escape-html.js';
import { FormulaCache } from './formula-cache.js';

type Typeset = (tex: string, display: boolean, source: string) => string;

/**
 * KaTeX is loaded the first time a step has a formula: most sessions have none, and it is larger
 * than the rest of the session page. Until it is there, formulas show as their source.
 */
let typesetter: Typeset | undefined;
let loading: Promise<void> | undefined;

/** Whether formulas can be typeset now (else they render as their source until `loadMath` resolves). */
export function isMathLoaded(): boolean {
  return typesetter !== undefined;
}

/** Load KaTeX (once; later calls share the same promise). */
export function loadMath(): Promise<void> {
  loading ??= import('./katex-typesetter.js').then((module) => {
    typesetter = module.typeset;
  });
  return loading;
}

// Keyed by mode and source (a parse error shows the source as written).
const cache = new FormulaCache<string>(500);

/** A complete formula as HTML: typeset (cached) once KaTeX is loaded, its source until then. */
export function renderFormula(tex: string, display: boolean, source: string): string {
  const typeset = typesetter;
  if (typeset === undefined) return `<span class="math-source" data-math-pending>${escapeHtml(source)}</span>`;
  return cache.getOrMake(`${display ? 'D' : 'I'}${source}`, () => typeset(tex, display, source));
}
