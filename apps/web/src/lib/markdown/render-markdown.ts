import { Marked, type Token, type Tokens } from 'marked';
import { escapeHtml } from './escape-html.js';
import { mathExtension } from './math/math-extension.js';
import { mayContainMath } from './math/math-syntax.js';
import { plainProseHtml } from './plain-prose.js';

/**
 * Agent text is untrusted. It is rendered as markdown, but raw HTML is never passed through:
 * HTML tokens become visible text, and links may only point to http(s), mailto or in-page
 * targets. Images are shown as links so rendering a step never fetches anything by itself.
 * Formulas are typeset by KaTeX (see math/), the only HTML here that is not escaped text.
 */

export { escapeHtml };

const SAFE_ABSOLUTE = /^(?:https?:\/\/|mailto:)/i;
const SAFE_RELATIVE = /^(?:#|\/(?!\/)|\?)/;

/** The href if it is safe to put in a link, else null (javascript:, data:, vbscript:, protocol-relative …). */
export function safeHref(href: string): string | null {
  // Browsers ignore control characters and whitespace inside a scheme ("java\tscript:"), so do we.
  const cleaned = href.replace(/[\u0000-\u0020\u007f-\u009f]/g, '');
  if (cleaned === '') return null;
  if (SAFE_ABSOLUTE.test(cleaned) || SAFE_RELATIVE.test(cleaned)) return cleaned;
  return null;
}

function neutralise(token: Token): void {
  if (token.type === 'html') {
    // Raw HTML (block or inline) is re-typed as plain text, which the renderer escapes.
    const raw = token.raw;
    const mutable = token as unknown as { type: string; text: string; escaped: boolean; block?: boolean };
    mutable.type = 'text';
    mutable.text = raw;
    mutable.escaped = false;
    return;
  }
  // Text inside <script>/<pre> raw runs is flagged "escaped" by the lexer and would be emitted verbatim.
  if (token.type === 'text' && (token as Tokens.Text).escaped) (token as Tokens.Text).escaped = false;
}

const marked = new Marked({
  gfm: true,
  breaks: true,
  async: false,
  walkTokens: neutralise,
  renderer: {
    html({ text }) {
      return escapeHtml(text);
    },
    link({ href, title, tokens }) {
      const label = this.parser.parseInline(tokens);
      const safe = safeHref(href);
      if (safe === null) return label;
      const titleAttr = title ? ` title="${escapeHtml(title)}"` : '';
      return `<a href="${escapeHtml(safe)}"${titleAttr} target="_blank" rel="noopener noreferrer nofollow">${label}</a>`;
    },
    image({ href, text }) {
      const safe = safeHref(href);
      const label = escapeHtml(text || href);
      if (safe === null) return label;
      return `<a href="${escapeHtml(safe)}" target="_blank" rel="noopener noreferrer nofollow">${label}</a>`;
    },
  },
});
marked.use(mathExtension);

/** Render untrusted markdown to HTML that contains no author-supplied tags, attributes or scripts. */
export function renderMarkdown(source: string): string {
  return plainProseHtml(source) ?? marked.parse(source, { async: false });
}

/** Rendered markdown, and whether it has a formula (then KaTeX is worth loading). */
export interface RenderedMarkdown {
  html: string;
  hasMath: boolean;
}

/** Like `renderMarkdown`, also telling whether the text has a complete formula. */
export function renderMarkdownWithMath(source: string): RenderedMarkdown {
  if (!mayContainMath(source)) return { html: renderMarkdown(source), hasMath: false };
  const tokens = marked.lexer(source);
  let hasMath = false;
  marked.walkTokens(tokens, (token) => {
    neutralise(token);
    if (token.type === 'math' || token.type === 'mathBlock') hasMath = true;
  });
  return { html: marked.parser(tokens), hasMath };
}
