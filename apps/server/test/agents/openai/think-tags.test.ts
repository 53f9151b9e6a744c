import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ThinkTagSplitter, type ContentSegment } from '../../../src/agents/openai/think-tags.js';

function splitAll(chunks: readonly string[]): ContentSegment[] {
  const splitter = new ThinkTagSplitter();
  return [...chunks.flatMap((chunk) => splitter.push(chunk)), ...splitter.flush()];
}

/** Adjacent segments of one kind joined: how they read, whatever the chunking. */
function merged(segments: readonly ContentSegment[]): ContentSegment[] {
  const out: ContentSegment[] = [];
  for (const segment of segments) {
    if (!segment.text) continue;
    const last = out.at(-1);
    if (last?.kind === segment.kind) last.text += segment.text;
    else out.push({ ...segment });
  }
  return out;
}

describe('ThinkTagSplitter', () => {
  it('separates reasoning from text', () => {
    expect(splitAll(['<think>plan</think>answer'])).toEqual([
      { kind: 'reasoning', text: 'plan' },
      { kind: 'text', text: 'answer' },
    ]);
  });

  it('recognises tags split across chunks, one character at a time', () => {
    expect(merged(splitAll([...'<think>a < b</think>so b > a']))).toEqual([
      { kind: 'reasoning', text: 'a < b' },
      { kind: 'text', text: 'so b > a' },
    ]);
  });

  it('holds back only what could still become a tag', () => {
    const splitter = new ThinkTagSplitter();

    expect(splitter.push('x <thi')).toEqual([{ kind: 'text', text: 'x ' }]);
    expect(splitter.push('ng>')).toEqual([{ kind: 'text', text: '<thing>' }]);
  });

  it('lets a held-back partial tag out as text when the stream ends', () => {
    const splitter = new ThinkTagSplitter();
    splitter.push('a <thin');

    expect(splitter.flush()).toEqual([{ kind: 'text', text: '<thin' }]);
  });

  it('classifies the same content the same way however it is chunked', () => {
    const alphabet = fc.constantFrom('<', '>', '/', 't', 'h', 'i', 'n', 'k', 'a', ' ', '\n');
    const segment = fc.record({ kind: fc.constantFrom<'reasoning' | 'text'>('reasoning', 'text'), text: fc.string({ unit: alphabet, maxLength: 12 }) });
    const serialise = (segments: ContentSegment[]): string =>
      segments.map((s) => (s.kind === 'reasoning' ? `<think>${s.text}</think>` : s.text)).join('');
    const unambiguous = (segments: ContentSegment[]): boolean =>
      merged(segments).every((s) => !s.text.includes(s.kind === 'reasoning' ? '</think>' : '<think>')) &&
      segments.every((s) => s.kind === 'text' || !s.text.includes('</think>'));

    fc.assert(
      fc.property(fc.array(segment, { maxLength: 6 }).filter(unambiguous), fc.array(fc.nat(), { maxLength: 8 }), (segments, cuts) => {
        const text = serialise(segments);
        const points = [...new Set(cuts.map((cut) => cut % (text.length + 1)))].sort((a, b) => a - b);
        const chunks = [0, ...points].map((start, i) => text.slice(start, [...points, text.length][i]));
        expect(merged(splitAll(chunks))).toEqual(merged(segments));
      }),
    );
  });
});
