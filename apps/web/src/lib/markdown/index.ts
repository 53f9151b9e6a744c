export { renderMarkdown, renderMarkdownWithMath, safeHref, escapeHtml, type RenderedMarkdown } from './render-markdown.js';
export { isMathLoaded, loadMath, renderFormula } from './math/math-engine.js';
export { splitFormulas, type StreamingPiece } from './math/streaming-formulas.js';
export { matchInlineMath, matchBlockMath, type MathMatch } from './math/math-syntax.js';
