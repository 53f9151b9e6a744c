import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { diffText, suggestGranularity, type DiffPart } from '$lib/diff/index.js';
import { absorbShortEqualities } from '$lib/diff/text-diff.js';

const side = (parts: DiffPart[], keep: 'delete' | 'insert') =>
  parts
    .filter((part) => part.op === 'equal' || part.op === keep)
    .map((part) => part.text)
    .join('');
const changes = (parts: DiffPart[]) => parts.filter((part) => part.op !== 'equal');

describe('diffText at character level', () => {
  it('marks only the changed characters inside a word', () => {
    expect(diffText('We recieve it.', 'We receive it.', { granularity: 'char' })).toEqual([
      { op: 'equal', text: 'We rec' },
      { op: 'delete', text: 'ie' },
      { op: 'insert', text: 'ei' },
      { op: 'equal', text: 've it.' },
    ]);
  });

  it('marks each changed letter of a short edit, even a single one', () => {
    expect(changes(diffText('Use the grey box.', 'Use the gray box.', { granularity: 'char' }))).toEqual([
      { op: 'delete', text: 'e' },
      { op: 'insert', text: 'a' },
    ]);
  });

  it('keeps unrelated words whole instead of scattering single letters', () => {
    expect(changes(diffText('divide by two', 'divide by seven', { granularity: 'char' }))).toEqual([
      { op: 'delete', text: 'two' },
      { op: 'insert', text: 'seven' },
    ]);
  });
});

describe('diffText at word level', () => {
  it('marks whole words', () => {
    expect(changes(diffText('We recieve it.', 'We receive it.', { granularity: 'word' }))).toEqual([
      { op: 'delete', text: 'recieve' },
      { op: 'insert', text: 'receive' },
    ]);
  });
});

describe('diffText for structured text (tool-call JSON)', () => {
  const before = '{\n  "city": "Paris",\n  "days": 3,\n  "units": "metric"\n}';
  const after = '{\n  "city": "Paris",\n  "days": 5,\n  "units": "metric",\n  "lang": "fr"\n}';

  it('aligns lines first, then marks the changed words inside a changed line', () => {
    const parts = diffText(before, after, { granularity: 'word', lines: true });
    expect(changes(parts)).toEqual([
      { op: 'delete', text: '3' },
      { op: 'insert', text: '5' },
      { op: 'insert', text: ',\n  "lang": "fr"' },
    ]);
    expect(side(parts, 'delete')).toBe(before);
    expect(side(parts, 'insert')).toBe(after);
  });

  it('marks a changed value in character mode without breaking the lines around it', () => {
    const parts = diffText('{\n  "expression": "180 / 2.5"\n}', '{\n  "expression": "180 / 3"\n}', { granularity: 'char', lines: true });
    expect(changes(parts)).toEqual([
      { op: 'delete', text: '2.5' },
      { op: 'insert', text: '3' },
    ]);
  });
});

describe('suggestGranularity', () => {
  it.each<[string, string, 'char' | 'word']>([
    ['The answer is 4.', 'The answer is 5.', 'char'],
    ['We recieve it.', 'We receive it.', 'char'],
    ['{"expression": "180 / 2.5"}', '{"expression": "180 / 3"}', 'char'],
    ['First find the speed, then the time.', 'First find the time it takes, then the distance.', 'word'],
    ['Divide by two.', 'Multiply both sides by three instead.', 'word'],
    ['same', 'same', 'word'],
  ])('%j → %j reads best at %s level', (before, after, expected) => {
    expect(suggestGranularity(before, after)).toBe(expected);
  });
});

describe('diffText on any input', () => {
  const granularities = fc.constantFrom('word' as const, 'char' as const);

  it('gives both texts back, at every granularity, with or without lines', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 80 }), fc.string({ unit: 'grapheme', maxLength: 80 }), granularities, fc.boolean(), (before, after, granularity, lines) => {
        const parts = diffText(before, after, { granularity, lines });
        expect(side(parts, 'delete')).toBe(before);
        expect(side(parts, 'insert')).toBe(after);
        expect(parts.every((part) => part.text !== '')).toBe(true);
      }),
    );
  });

  it('stays bounded on a 10,000-character rewrite and still gives both texts back', () => {
    const words = (seed: number) => Array.from({ length: 1_700 }, (_, i) => ((i * seed) % 97).toString(36)).join(' ');
    const before = words(7).slice(0, 10_000);
    const after = words(13).slice(0, 10_000);
    for (const granularity of ['word', 'char'] as const) {
      const parts = diffText(before, after, { granularity });
      expect(side(parts, 'delete')).toBe(before);
      expect(side(parts, 'insert')).toBe(after);
    }
  });
});

describe('numbers in a character-level diff', () => {
  it('replaces a changed number whole: "0.[2][15]" would read as 0.215', () => {
    expect(changes(diffText('Multiply 240 by 0.2', 'Multiply 240 by 0.15', { granularity: 'char' }))).toEqual([
      { op: 'delete', text: '0.2' },
      { op: 'insert', text: '0.15' },
    ]);
  });
});

describe('absorbShortEqualities', () => {
  it('folds a one-letter equal run between two changes into one change, and leaves longer ones', () => {
    expect(
      absorbShortEqualities([
        { op: 'equal', text: 'rec' },
        { op: 'delete', text: 'i' },
        { op: 'equal', text: 'e' },
        { op: 'insert', text: 'i' },
        { op: 'equal', text: 've' },
      ]),
    ).toEqual([
      { op: 'equal', text: 'rec' },
      { op: 'delete', text: 'ie' },
      { op: 'insert', text: 'ei' },
      { op: 'equal', text: 've' },
    ]);
    const apart = [
      { op: 'delete' as const, text: 'a' },
      { op: 'equal' as const, text: 'bcd' },
      { op: 'insert' as const, text: 'e' },
    ];
    expect(absorbShortEqualities(apart)).toEqual(apart);
  });
});
