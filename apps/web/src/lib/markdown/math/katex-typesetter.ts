// Loaded on demand (see math-engine.ts): KaTeX, its stylesheet and fonts (bundled by Vite, served
// from 'self'), and a copy handler that puts the TeX of a selected formula on the clipboard.
import katex from 'katex';
import 'katex/dist/katex.min.css';
import 'katex/contrib/copy-tex';
import { escapeHtml } from '../escape-html.js';

/**
 * Agent text is untrusted: no \href, \url, \htmlClass … (`trust: false`), no console warnings
 * (`strict: 'ignore'`), and bounds that keep a hostile formula from hanging the page (`maxSize`
 * in em for \rule and \kern, `maxExpand` for macro expansion).
 */
const OPTIONS = {
  output: 'htmlAndMathml',
  throwOnError: true,
  trust: false,
  strict: 'ignore',
  maxSize: 20,
  maxExpand: 200,
} as const;

/**
 * A formula as HTML with MathML for screen readers. One KaTeX cannot parse shows as its source in a
 * quiet style with the reason in its title: red error text flashing in a chain reads as a failure.
 */
export function typeset(tex: string, display: boolean, source: string): string {
  try {
    return katex.renderToString(tex, { ...OPTIONS, displayMode: display });
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return `<code class="math-source" title="${escapeHtml(reason)}" data-math-error>${escapeHtml(source)}</code>`;
  }
}
