import type { Token } from './tokenizer.js';

const SHOWN_OPERATORS: Readonly<Record<string, string>> = { '+': '+', '-': '−', '*': '×', '/': '÷', mod: 'mod' };

/** A minus or plus is a sign (not an operator) at the start, after an operator other than %, or after '('. */
function isSign(previous: Token | undefined): boolean {
  if (previous === undefined) return true;
  if (previous.type === 'operator') return previous.op !== '%';
  return previous.type === 'paren' && previous.paren === '(';
}

/** The expression as people write it on paper: `12*(3+4)` → `12 × (3 + 4)`, `-2^2` → `−2^2`. */
export function renderTokens(tokens: readonly Token[]): string {
  let out = '';
  tokens.forEach((token, i) => {
    const previous = tokens[i - 1];
    if (token.type === 'number') out += token.text;
    else if (token.type === 'paren') out += token.paren;
    else if (token.op === '%' || token.op === '^') out += token.op;
    else if ((token.op === '-' || token.op === '+') && isSign(previous)) out += SHOWN_OPERATORS[token.op];
    else out += ` ${SHOWN_OPERATORS[token.op] ?? token.op} `;
  });
  return out;
}
