import type { MarkedExtension, Tokens } from 'marked';
import { renderFormula } from './math-engine.js';
import { blockMathStart, inlineMathStart, matchBlockMath, matchInlineMath } from './math-syntax.js';

/** A formula token: its TeX, and whether it is displayed on a line of its own. */
export interface MathToken extends Tokens.Generic {
  type: 'math' | 'mathBlock';
  raw: string;
  tex: string;
  display: boolean;
}

/**
 * Formulas as marked tokens. Marked tokenizes code spans and code blocks before it reaches text,
 * so a `$` inside code is never seen here; and an unclosed `$$` is consumed as plain text, so its
 * second `$` cannot open an inline formula of its own.
 */
export const mathExtension: MarkedExtension = {
  extensions: [
    {
      name: 'mathBlock',
      level: 'block',
      start: blockMathStart,
      tokenizer(src): MathToken | undefined {
        const found = matchBlockMath(src);
        return found && { type: 'mathBlock', raw: found.raw, tex: found.tex, display: true };
      },
      renderer(token) {
        const { tex, raw } = token as MathToken;
        return `<div class="math-display">${renderFormula(tex, true, raw.trim())}</div>\n`;
      },
    },
    {
      name: 'math',
      level: 'inline',
      start: inlineMathStart,
      tokenizer(src): MathToken | Tokens.Text | undefined {
        const found = matchInlineMath(src);
        if (found) return { type: 'math', raw: found.raw, tex: found.tex, display: found.display };
        if (src.startsWith('$$')) return { type: 'text', raw: '$$', text: '$$' };
        return undefined;
      },
      renderer(token) {
        const { tex, display, raw } = token as MathToken;
        return renderFormula(tex, display, raw);
      },
    },
  ],
};
