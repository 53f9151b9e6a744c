import { describe, expect, it } from 'vitest';
import { GrowingFormulas, splitFormulas, type GrowingSplit, type StreamingPiece } from '$lib/markdown/index.js';
import { medianMicros } from '../../support/measure.js';

/** A split as the pieces splitFormulas gives. */
const pieces = ({ head, tail }: GrowingSplit): StreamingPiece[] => (tail === '' ? [...head] : [...head, { text: tail }]);

/** Text streamed in chunks: the split of every prefix, growing and fresh. */
function both(chunks: string[]): { growing: unknown[]; fresh: unknown[] } {
  const formulas = new GrowingFormulas();
  const growing: unknown[] = [];
  const fresh: unknown[] = [];
  let text = '';
  for (const chunk of chunks) {
    text += chunk;
    growing.push(pieces(formulas.split(text)));
    fresh.push(splitFormulas(text));
  }
  return { growing, fresh };
}

describe('GrowingFormulas', () => {
  it('splits every prefix of a streamed text exactly as splitFormulas does', () => {
    const text = 'The area is $\\pi r^2$ for a circle; it costs $40 and $5 to print. Then `$HOME$` and \\(x+1\\), $$\n\\int_0^1 x\\,dx\n$$ and $5-$10, US$5, next $x^2 +';
    for (const size of [1, 2, 3, 5, 8]) {
      const chunks = text.match(new RegExp(`[\\s\\S]{1,${size}}`, 'g'))!;
      const { growing, fresh } = both(chunks);
      expect(growing).toEqual(fresh);
    }
  });

  it('starts afresh when the text is not the last one grown (a shorter or other text)', () => {
    const formulas = new GrowingFormulas();
    formulas.split('Area $a$ and more');
    expect(pieces(formulas.split('Other $b$'))).toEqual(splitFormulas('Other $b$'));
    expect(pieces(formulas.split('Oth'))).toEqual(splitFormulas('Oth'));
  });

  // A measure to read, not a target: a delta without a delimiter at the end of a 50,000-character text with formulas.
  it('prints what a plain delta costs on a long text with formulas', () => {
    let text = '';
    for (let i = 0; i < 1000; i++) text += `Step ${i}: the area is $\\pi r_${i}^2$ and it costs $40. `;
    const formulas = new GrowingFormulas();
    formulas.split(text);
    // Each round adds a delta and splits it one way; the other way then splits the same text.
    const grow = () => void (text += 'more words ');
    const whole = medianMicros(300, () => splitFormulas(text), grow);
    const growing = medianMicros(300, () => formulas.split(text), grow);
    expect(pieces(formulas.split(text))).toEqual(splitFormulas(text));
    console.log(`[measure] math split per delta on ${text.length} chars (median): whole scan ${whole} µs, growing ${growing} µs`);
  });
});
