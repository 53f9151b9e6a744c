import fc from 'fast-check';
import { Marked } from 'marked';
import { describe, expect, it } from 'vitest';
import { renderMarkdown } from '$lib/markdown/index.js';
import { plainProseHtml } from '$lib/markdown/plain-prose.js';

// The markdown renderer with the same options and no plain-prose path: what the fast path must equal.
const marked = new Marked({ gfm: true, breaks: true, async: false });
const viaMarked = (source: string) => marked.parse(source, { async: false });

/** Pieces a text is built of: prose, and everything that could make it markdown (or look like it might). */
const PIECES = [
  'word', 'Ada', '中文', '，', '。', ' ', ' ', '\n', '\n\n', '\n\n\n', '.', ',', ';', ':', '?', '!', "'", '"', '(', ')', '/', '@', '#', '%', '^',
  '1', '42', '1.', '2)', '*', '_', '-', '+', '=', '`', '~', '[', ']', '<', '>', '&', '|', '$', '\\', '{', '}', '\t', '\r', '\u00a0', '\u3000', '\u2028',
  'www.', 'http://', 'a@b.c', 'x@y', '    ', '  \n', '# ', '> ', '---', '===', '😀',
];
const text = fc.array(fc.constantFrom(...PIECES), { maxLength: 24 }).map((parts) => parts.join(''));
/** Mostly prose, with now and then a piece that is, or only looks like, the start of something: the texts the fast path takes. */
const PROSE = ['word', 'Ada', '中文', '。', ' ', '\n', '\n\n', '.', ',', '?', "'", '"', '(', ')', '/', '@', '#', '1', '1.', '2)', '  ', '\n ', ' \n', '#\n'];
const prose = fc.array(fc.constantFrom(...PROSE), { maxLength: 24 }).map((parts) => parts.join(''));

describe('plainProseHtml', () => {
  it('gives exactly what the markdown renderer gives, whenever it takes a text', () => {
    fc.assert(
      fc.property(text, (source) => {
        const fast = plainProseHtml(source);
        if (fast !== undefined) expect(fast).toBe(viaMarked(source));
      }),
      { numRuns: 20_000 },
    );
    let taken = 0;
    fc.assert(
      fc.property(prose, (source) => {
        const fast = plainProseHtml(source);
        if (fast === undefined) return;
        taken++;
        expect(fast).toBe(viaMarked(source));
      }),
      { numRuns: 20_000 },
    );
    // The comparison means something only if the fast path took many of them.
    expect(taken).toBeGreaterThan(2_000);
  });

  it('takes the prose agents write, in English and Chinese, with quotes, questions and line breaks', () => {
    for (const source of [
      'For 10 people you need 625 grams, which is 0.625 kilograms.',
      'Let me check the recipe (it says "250 g for 4").\nThen scale it: is 10/4 right?',
      '先算出每人需要的面粉，再乘以人数。\n\n答案是 625 克。',
      '@T1234567#12 xxxxxxxx@T1234600#13 xxxxxxxx',
      '',
      '\n',
    ]) {
      expect(plainProseHtml(source), source).toBe(viaMarked(source));
    }
  });

  it('leaves markdown, links, e-mail addresses, lists, code, math and raw HTML to the renderer', () => {
    for (const source of ['**bold**', 'see www.example.com', 'mail ada@example.com', '1. first', '    code', '# Title', '$x$', '<b>x</b>', 'a  \nb', 'https://example.com', 'a\n---']) {
      expect(plainProseHtml(source), source).toBeUndefined();
    }
  });

  it('is the path renderMarkdown takes for prose, and the output is still escaped', () => {
    expect(renderMarkdown('It\'s "done" now')).toBe(viaMarked('It\'s "done" now'));
    expect(renderMarkdown('She said "fine", it\'s 5 o\'clock')).toBe('<p>She said &quot;fine&quot;, it&#39;s 5 o&#39;clock</p>\n');
  });
});
