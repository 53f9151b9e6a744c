import { describe, expect, it } from 'vitest';
import { splitFormulas } from '$lib/markdown/index.js';

const formulasOf = (text: string) => splitFormulas(text).flatMap((piece) => ('tex' in piece ? [piece.raw] : []));

describe('splitFormulas (text still being written)', () => {
  it('gives the text back, joined', () => {
    const text = 'Area $\\pi r^2$, cost $40 and $5, `$x$` and $$\\sum_i i$$ then $y';
    expect(splitFormulas(text).map((piece) => ('tex' in piece ? piece.raw : piece.text)).join('')).toBe(text);
  });

  it.each<[string, string[]]>([
    ['The area is $\\pi r', []],
    ['The area is $\\pi r^2$ and', ['$\\pi r^2$']],
    ['It costs $40 and $5.', []],
    ['Display $$\\int_0^1 x$$ done, then $$ open', ['$$\\int_0^1 x$$']],
    ['Code `echo $HOME$` is not math, $a$ is', ['$a$']],
    ['An open fence ```\n$x$\n', []],
    ['面积是 $\\pi r^2$。', ['$\\pi r^2$']],
    ['\\(a\\) and \\[b\\]', ['\\(a\\)', '\\[b\\]']],
  ])('%j has complete formulas %j', (text, expected) => {
    expect(formulasOf(text)).toEqual(expected);
  });
});
