import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { diffWords, tokenizeWords, type DiffPart } from '$lib/diff/index.js';

const side = (parts: DiffPart[], keep: 'delete' | 'insert') =>
  parts
    .filter((part) => part.op === 'equal' || part.op === keep)
    .map((part) => part.text)
    .join('');

describe('tokenizeWords', () => {
  it('keeps words, numbers and spaces whole and gives the text back when joined', () => {
    const tokens = tokenizeWords('Speed = 180 / 2.5 km/h');
    expect(tokens).toContain('180');
    expect(tokens).toContain('2.5');
    expect(tokens.join('')).toBe('Speed = 180 / 2.5 km/h');
  });

  it('splits Chinese into single characters, since it has no spaces', () => {
    expect(tokenizeWords('吃了3个')).toEqual(['吃', '了', '3', '个']);
  });
});

describe('diffWords', () => {
  it('marks only the changed word of a small edit', () => {
    const parts = diffWords('The speed is 70 km/h.', 'The speed is 72 km/h.');
    expect(parts).toEqual([
      { op: 'equal', text: 'The speed is ' },
      { op: 'delete', text: '70' },
      { op: 'insert', text: '72' },
      { op: 'equal', text: ' km/h.' },
    ]);
  });

  it('shows a pure insertion and a pure deletion', () => {
    expect(diffWords('a c', 'a b c')).toEqual([
      { op: 'equal', text: 'a ' },
      { op: 'insert', text: 'b ' },
      { op: 'equal', text: 'c' },
    ]);
    expect(diffWords('a b c', 'a c')).toEqual([
      { op: 'equal', text: 'a ' },
      { op: 'delete', text: 'b ' },
      { op: 'equal', text: 'c' },
    ]);
  });

  it('groups neighbouring changed words into one deletion and one insertion', () => {
    const parts = diffWords('divide by two then add one', 'divide by three then add one');
    expect(parts.filter((part) => part.op !== 'equal')).toEqual([
      { op: 'delete', text: 'two' },
      { op: 'insert', text: 'three' },
    ]);
  });

  it('diffs Chinese text by character', () => {
    const parts = diffWords('吃了3个', '吃了4个');
    expect(parts).toEqual([
      { op: 'equal', text: '吃了' },
      { op: 'delete', text: '3' },
      { op: 'insert', text: '4' },
      { op: 'equal', text: '个' },
    ]);
  });

  it('handles empty texts on either side', () => {
    expect(diffWords('', 'new text')).toEqual([{ op: 'insert', text: 'new text' }]);
    expect(diffWords('old text', '')).toEqual([{ op: 'delete', text: 'old text' }]);
    expect(diffWords('', '')).toEqual([]);
  });

  it('always rebuilds both texts exactly (property)', () => {
    const text = fc.array(fc.constantFrom('a', 'b', 'c', ' ', '1', '.', '中', '\n', 'word'), { maxLength: 40 }).map((parts) => parts.join(''));
    fc.assert(
      fc.property(text, text, (before, after) => {
        const parts = diffWords(before, after);
        expect(side(parts, 'delete')).toBe(before);
        expect(side(parts, 'insert')).toBe(after);
      }),
      { numRuns: 300 },
    );
  });

  it('still produces a correct diff for long, very different texts', () => {
    const before = Array.from({ length: 3000 }, (_, i) => `w${i}`).join(' ');
    const after = Array.from({ length: 3000 }, (_, i) => `v${i}`).join(' ');
    const parts = diffWords(before, after);
    expect(side(parts, 'delete')).toBe(before);
    expect(side(parts, 'insert')).toBe(after);
  });
});
