import { describe, expect, it } from 'vitest';
import { matchBlockMath, matchInlineMath } from '$lib/markdown/index.js';
import { renderMarkdown } from '$lib/markdown/index.js';

/** The formulas renderMarkdown finds in a text, as written (KaTeX is not loaded in this file: each shows as its source). */
function formulas(source: string): string[] {
  const root = document.createElement('div');
  root.innerHTML = renderMarkdown(source);
  return [...root.querySelectorAll('[data-math-pending]')].map((el) => el.textContent ?? '');
}

describe('math delimiters', () => {
  it.each([
    ['$x^2$', { tex: 'x^2', display: false }],
    ['\\(a+b\\) rest', { tex: 'a+b', display: false }],
    ['$$\\sum_i i$$ after', { tex: '\\sum_i i', display: true }],
    ['\\[E = mc^2\\]', { tex: 'E = mc^2', display: true }],
    ['$\\pi r^2$。', { tex: '\\pi r^2', display: false }],
    ['$a\\$b$', { tex: 'a\\$b', display: false }],
  ])('matches %j at the start of the text', (source, expected) => {
    expect(matchInlineMath(source)).toMatchObject(expected);
  });

  it.each([
    ['$x^2 +', 'unclosed while streaming'],
    ['$$x^2 +', 'unclosed display while streaming'],
    ['\\(x', 'unclosed \\('],
    ['$ x$', 'a space after the opener'],
    ['$x $', 'a space before the closer'],
    ['$5-$10', 'a closer followed by a digit'],
    ['$40 and $5', 'money: the next $ follows a space'],
    ['$$', 'an empty display'],
  ])('does not match %j (%s)', (source) => {
    expect(matchInlineMath(source)).toBeUndefined();
  });

  it('matches a display block only when it is closed and ends its line', () => {
    expect(matchBlockMath('$$\na^2 + b^2\n$$\nnext')).toMatchObject({ tex: 'a^2 + b^2' });
    expect(matchBlockMath('\\[\n\\int_0^1 x\\,dx\n\\]')).toMatchObject({ tex: '\\int_0^1 x\\,dx' });
    expect(matchBlockMath('$$\na^2 +')).toBeUndefined();
    expect(matchBlockMath('$$a$$ and more')).toBeUndefined();
  });
});

describe('formulas in prose', () => {
  it.each<[string, string[]]>([
    ['It costs $40 and $5 more.', []],
    ['The price: costs $5.', []],
    ['Between $5-$10 a night.', []],
    ['Priced at US$5 or US$7.', []],
    ['Pay $5, then $x$ later.', ['$x$']],
    ['A $20 bill and $y = 2$.', ['$y = 2$']],
    ['Escaped \\$5 and \\$6$ stay text.', []],
    ['A ticket is US$5 in `$HOME$`.', []],
    ['Both $a$ and `$b$` here.', ['$a$']],
    ['面积是 $\\pi r^2$。', ['$\\pi r^2$']],
    ['「面积是$\\pi r^2$」，周长是 \\(2\\pi r\\)。', ['$\\pi r^2$', '\\(2\\pi r\\)']],
    ['Inline $a$ and display $$b$$ in one line.', ['$a$', '$$b$$']],
    ['Unfinished $x^2 + y', []],
    ['Unfinished display $$x^2 + y', []],
    ['Unfinished \\(x^2 + y', []],
  ])('%j has formulas %j', (source, expected) => {
    expect(formulas(source)).toEqual(expected);
  });

  it('leaves code spans and fenced and indented code blocks untouched', () => {
    const source = 'Run `echo $HOME$` now.\n\n```\n$x^2$ and $$y$$\n```\n\n    $$z$$\n';
    const root = document.createElement('div');
    root.innerHTML = renderMarkdown(source);
    expect(root.querySelectorAll('[data-math-pending]')).toHaveLength(0);
    expect([...root.querySelectorAll('code')].map((el) => el.textContent)).toEqual(['echo $HOME$', '$x^2$ and $$y$$\n', '$$z$$\n']);
  });

  it('finds a display block between paragraphs', () => {
    expect(formulas('Pythagoras:\n\n$$\na^2 + b^2 = c^2\n$$\n\nso c = 5.')).toEqual(['$$\na^2 + b^2 = c^2\n$$']);
  });
});
