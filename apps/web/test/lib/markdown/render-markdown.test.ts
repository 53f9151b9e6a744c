import { describe, expect, it } from 'vitest';
import { renderMarkdown, safeHref } from '$lib/markdown/index.js';

/** Parse the HTML the way the browser will, to assert on elements rather than on strings. */
function parse(html: string): HTMLElement {
  const container = document.createElement('div');
  container.innerHTML = html;
  return container;
}

describe('renderMarkdown', () => {
  it('renders ordinary markdown: emphasis, lists, code', () => {
    const root = parse(renderMarkdown('Speed is **72 km/h**.\n\n- distance\n- time\n\n`180 / 2.5`'));
    expect(root.querySelector('strong')?.textContent).toBe('72 km/h');
    expect(root.querySelectorAll('li')).toHaveLength(2);
    expect(root.querySelector('code')?.textContent).toBe('180 / 2.5');
  });

  it('shows an inline <img onerror> as text instead of creating an element', () => {
    const source = 'look <img src=x onerror=alert(1)> here';
    const root = parse(renderMarkdown(source));
    expect(root.querySelector('img')).toBeNull();
    expect(root.textContent).toContain('<img src=x onerror=alert(1)>');
  });

  it('shows a <script> block as text and never creates a script element', () => {
    const source = '<script>window.__xss = 1</script>\n\nafter';
    const root = parse(renderMarkdown(source));
    expect(root.querySelector('script')).toBeNull();
    expect(root.textContent).toContain('<script>window.__xss = 1</script>');
    expect(root.textContent).toContain('after');
  });

  it('keeps text inside an inline raw-HTML run escaped', () => {
    const root = parse(renderMarkdown('a <pre>x <b onmouseover=alert(1)>y</b></pre> z'));
    expect(root.querySelector('b')).toBeNull();
    expect(root.querySelector('pre')).toBeNull();
    expect(root.textContent).toContain('<b onmouseover=alert(1)>');
  });

  it('refuses javascript: links but keeps their label', () => {
    const root = parse(renderMarkdown('[click me](javascript:alert(1)) and [also](JaVaScRiPt:alert(2))'));
    expect(root.querySelector('a')).toBeNull();
    expect(root.textContent).toContain('click me');
    expect(root.textContent).toContain('also');
  });

  it('refuses data: and protocol-relative links', () => {
    const root = parse(renderMarkdown('[a](data:text/html;base64,PHNjcmlwdD4=) [b](//evil.example/x)'));
    expect(root.querySelector('a')).toBeNull();
  });

  it('keeps http(s) links, opening them in a new tab without an opener', () => {
    const root = parse(renderMarkdown('[docs](https://example.com/a?b=1&c=2)'));
    const link = root.querySelector('a');
    expect(link?.getAttribute('href')).toBe('https://example.com/a?b=1&c=2');
    expect(link?.getAttribute('rel')).toContain('noopener');
    expect(link?.getAttribute('target')).toBe('_blank');
  });

  it('shows images as links, so rendering a step never fetches anything', () => {
    const root = parse(renderMarkdown('![chart](https://example.com/chart.png) ![x](javascript:alert(1))'));
    expect(root.querySelector('img')).toBeNull();
    expect(root.querySelector('a')?.getAttribute('href')).toBe('https://example.com/chart.png');
    expect(root.textContent).toContain('x');
  });

  it('escapes attribute-breaking characters in link titles', () => {
    const root = parse(renderMarkdown('[t](https://example.com "a\\" onmouseover=\\"alert(1)")'));
    const link = root.querySelector('a');
    expect(link?.getAttribute('onmouseover')).toBeNull();
    expect(link?.getAttribute('title')).toContain('onmouseover');
  });
});

describe('safeHref', () => {
  it('allows web, mail and in-page targets', () => {
    expect(safeHref('https://a.example')).toBe('https://a.example');
    expect(safeHref('http://a.example')).toBe('http://a.example');
    expect(safeHref('mailto:a@b.example')).toBe('mailto:a@b.example');
    expect(safeHref('#step-3')).toBe('#step-3');
    expect(safeHref('/sessions/s1')).toBe('/sessions/s1');
  });

  it('rejects script schemes even when hidden by whitespace or control characters', () => {
    expect(safeHref('java\tscript:alert(1)')).toBeNull();
    expect(safeHref(' javascript:alert(1)')).toBeNull();
    expect(safeHref('vbscript:x')).toBeNull();
    expect(safeHref('&#106;avascript:alert(1)')).toBeNull();
    expect(safeHref('')).toBeNull();
  });
});
