import { beforeAll, describe, expect, it } from 'vitest';
import { isMathLoaded, loadMath, renderMarkdown, renderMarkdownWithMath } from '$lib/markdown/index.js';

function parse(html: string): HTMLElement {
  const container = document.createElement('div');
  container.innerHTML = html;
  return container;
}

describe('typesetting formulas with KaTeX', () => {
  beforeAll(async () => {
    await loadMath();
  });

  it('typesets inline and display math with MathML and the TeX as its annotation', () => {
    expect(isMathLoaded()).toBe(true);
    const root = parse(renderMarkdown('Area $\\pi r^2$.\n\n$$\\frac{a}{b}$$'));
    expect(root.querySelectorAll('.katex')).toHaveLength(2);
    expect(root.querySelectorAll('math')).toHaveLength(2);
    expect(root.querySelector('.math-display .katex-display')).not.toBeNull();
    expect([...root.querySelectorAll('annotation[encoding="application/x-tex"]')].map((el) => el.textContent)).toEqual(['\\pi r^2', '\\frac{a}{b}']);
  });

  it('shows a closed but invalid formula as its source, quietly, with the KaTeX error as its title', () => {
    const root = parse(renderMarkdown('Broken: $\\frac{1$ here'));
    const source = root.querySelector('[data-math-error]');
    expect(source?.textContent).toBe('$\\frac{1$');
    expect(source?.getAttribute('title')).toMatch(/KaTeX parse error/);
    expect(root.querySelector('.katex-error')).toBeNull();
  });

  it('refuses what untrusted TeX must not do: links, raw HTML, huge sizes', () => {
    const root = parse(renderMarkdown('$\\href{javascript:alert(1)}{x}$ and $\\htmlId{a}{b}$ and $<img src=x onerror=alert(1)>$'));
    expect(root.querySelector('a, img, #a')).toBeNull();
    const big = parse(renderMarkdown('$\\rule{100000em}{100000em}$'));
    expect(big.querySelector<HTMLElement>('.katex-rule')?.style.borderTopWidth).toBe('20em');
  });

  it('stops a formula that expands without end', () => {
    const started = performance.now();
    const root = parse(renderMarkdown('$\\def\\a{\\a\\a}\\a$'));
    expect(root.querySelector('[data-math-error]')?.getAttribute('title')).toMatch(/Too many expansions/);
    expect(performance.now() - started).toBeLessThan(5_000);
  });

  it('reports whether a text has a formula, so KaTeX is only loaded when one does', () => {
    expect(renderMarkdownWithMath('It costs $40 and $5.').hasMath).toBe(false);
    expect(renderMarkdownWithMath('No math at all').hasMath).toBe(false);
    expect(renderMarkdownWithMath('Then $x$.').hasMath).toBe(true);
    expect(renderMarkdownWithMath('- item $$y$$').hasMath).toBe(true);
  });

  it('keeps raw HTML next to a formula neutralised', () => {
    const root = parse(renderMarkdownWithMath('<script>window.__x=1</script>\n\n$x$ <b>bold</b>').html);
    expect(root.querySelector('script, b')).toBeNull();
    expect(root.textContent).toContain('<b>bold</b>');
    expect(root.querySelector('.katex')).not.toBeNull();
  });
});
