export { renderMarkdown, renderMarkdownWithMath, safeHref, escapeHtml, type RenderedMarkdown } from './render-markdown.js';
export { isMathLoaded, loadMath } from './math/math-engine.js';
export { matchInlineMath, matchBlockMath, type MathMatch } from './math/math-syntax.js';
