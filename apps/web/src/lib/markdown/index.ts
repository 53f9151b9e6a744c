export { renderMarkdown, safeHref, escapeHtml } from './render-markdown.js';
