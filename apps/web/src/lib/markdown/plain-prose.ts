import { escapeHtml } from './escape-html.js';

/**
 * Most of what an agent writes is prose with no markdown in it, and a long chain renders a
 * completed step as it is drawn (a hundred a second while a fast agent streams). Such text needs
 * no lexer: it is paragraphs split at blank lines, lines joined by `<br>` (`breaks: true`), its
 * text escaped. This is the output the markdown renderer gives for it, byte for byte (a property
 * test holds the two together); any text this cannot be sure of goes to the renderer.
 */

/** A character markdown, GFM or the math extension might read as syntax, or whitespace other than a space or a line break (which a paragraph may trim). */
const MAY_BE_SYNTAX = /[\\`*_~[\]<>&|$!{}=+\-]|[^\S \n]|:\/\/|www\./i;
/** A line that could open a block: indentation, a heading, an ordered list item; trailing spaces too (a hard break). */
const BLOCK_START = /^[ ]|^#|^\d+[.)]|[ ]$/m;

/** The HTML of `source` if it is plain prose, else undefined (render it as markdown). */
export function plainProseHtml(source: string): string | undefined {
  if (MAY_BE_SYNTAX.test(source) || BLOCK_START.test(source)) return undefined;
  // An e-mail address is a GFM autolink: it needs an "@" and a dot after it.
  if (source.includes('@') && source.includes('.')) return undefined;
  let html = '';
  for (const paragraph of source.split(/\n{2,}/)) {
    const text = paragraph.replace(/^\n+|\n+$/g, '');
    if (text !== '') html += `<p>${escapeHtml(text).replaceAll('\n', '<br>')}</p>\n`;
  }
  return html;
}
