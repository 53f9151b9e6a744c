import { describe, expect, it } from 'vitest';
import { createMatcher } from '$lib/find/text-matcher.js';

describe('createMatcher', () => {
  it('finds nothing for an empty query', () => {
    expect(createMatcher('')).toBeNull();
  });

  it('is case-insensitive by default and finds every occurrence in order', () => {
    const matcher = createMatcher('flour')!;
    expect(matcher.ranges('Flour, more FLOUR and flour.')).toEqual([
      [0, 5],
      [12, 17],
      [22, 27],
    ]);
    expect(matcher.count('Flour, more FLOUR and flour.')).toBe(3);
  });

  it('matches case when asked', () => {
    expect(createMatcher('Flour', { matchCase: true })!.count('Flour, FLOUR, flour')).toBe(1);
  });

  it('folds case beyond ASCII, with offsets into the original text', () => {
    const matcher = createMatcher('äpfel')!;
    expect(matcher.ranges('ÄPFEL und Äpfel')).toEqual([
      [0, 5],
      [10, 15],
    ]);
  });

  it('finds CJK text', () => {
    const matcher = createMatcher('千克')!;
    const text = '10 人需要 625 克面粉，即 0.625 千克。换算成千克：0.625。';
    expect(matcher.count(text)).toBe(2);
    expect(matcher.ranges(text)[0]).toEqual([text.indexOf('千克'), text.indexOf('千克') + 2]);
  });

  it('takes regular-expression characters literally', () => {
    expect(createMatcher('(a+b)*')!.count('x (a+b)* y (a+b)*')).toBe(2);
    expect(createMatcher('$5.00')!.count('costs $5.00, not $5x00')).toBe(1);
    expect(createMatcher('a-b/c')!.count('a-b/c A-B/C')).toBe(2);
  });

  it('does not count overlapping occurrences twice', () => {
    expect(createMatcher('aa')!.count('aaaa')).toBe(2);
  });
});
