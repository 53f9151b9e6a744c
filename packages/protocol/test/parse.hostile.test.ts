import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ERROR_LIMITS, findIllFormedText, isWellFormedText, parseClientMessage } from '../src/index.js';

function refusal(raw: string) {
  const result = parseClientMessage(raw);
  if (result.ok) throw new Error(`expected a refusal of ${raw.slice(0, 80)}`);
  return result.error;
}

describe('text that cannot be stored exactly', () => {
  it('refuses a task with a lone high surrogate with BAD_FRAME naming the field', () => {
    const error = refusal('{"type":"session.create","id":"r1","task":"abc \\ud800 def"}');
    expect(error).toMatchObject({ code: 'BAD_FRAME', requestId: 'r1', details: [{ path: ['task'] }] });
    expect(error.message).toContain('lone UTF-16 surrogate');
  });

  it('refuses a lone low surrogate in a correction, a note, an option and a key', () => {
    const correction = '{"type":"step.correct","sessionId":"s","stepId":"t","content":"x\\udc00"}';
    expect(refusal(correction).details?.[0]?.path).toEqual(['content']);
    const note = '{"type":"step.correct","sessionId":"s","stepId":"t","content":"x","note":"\\udfff"}';
    expect(refusal(note).details?.[0]?.path).toEqual(['note']);
    const option = '{"type":"session.create","task":"t","options":{"model":"m\\ud83d"}}';
    expect(refusal(option).details?.[0]?.path).toEqual(['options', 'model']);
    const key = '{"type":"session.create","task":"t","\\ud800":1}';
    expect(refusal(key).details?.[0]?.path).toEqual(['\ud800']);
  });

  it('refuses a lone surrogate in a frame given as a JavaScript string', () => {
    expect(refusal(JSON.stringify({ type: 'session.create', task: 'a\ud800' })).code).toBe('BAD_FRAME');
    expect(refusal(`{"type":"session.create","task":"a\ud800"}`).code).toBe('BAD_FRAME');
  });

  it('accepts paired surrogates, escaped or raw, and keeps them exactly', () => {
    for (const raw of ['{"type":"session.create","task":"smile \\ud83d\\ude00 笑"}', '{"type":"session.create","task":"smile 😀 笑"}']) {
      const result = parseClientMessage(raw);
      expect(result.ok && result.message.type === 'session.create' && result.message.task).toBe('smile 😀 笑');
    }
  });

  it('agrees with isWellFormed on arbitrary UTF-16', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (text) => {
        const expected = (text as unknown as { isWellFormed(): boolean }).isWellFormed();
        expect(isWellFormedText(text)).toBe(expected);
        expect(findIllFormedText({ a: [text] }) === undefined).toBe(expected);
      }),
      { seed: 18, numRuns: 2_000 },
    );
  });

  it('walks a deeply nested frame without overflowing the stack', () => {
    const deep = `{"type":"session.create","task":"t","x":${'['.repeat(30_000)}"\\ud800"${']'.repeat(30_000)}}`;
    const error = refusal(deep);
    expect(error.code).toBe('BAD_FRAME');
    expect(error.details?.[0]?.path.length).toBeLessThanOrEqual(ERROR_LIMITS.pathMax);
  });
});

describe('error frames are bounded', () => {
  it('answers a frame with thousands of unknown keys with a few details, not one per key', () => {
    const keys = Array.from({ length: 5_000 }, (_, index) => `"k${index}":0`).join(',');
    const raw = `{"type":"session.create","task":"t",${keys}}`;
    expect(raw.length).toBeLessThan(65_536);
    const error = refusal(raw);
    expect(error.details).toHaveLength(ERROR_LIMITS.detailsMax);
    expect(error.message).toContain('4999 more issues');
    expect(JSON.stringify(error).length).toBeLessThan(4_096);
  });

  it('clips long unknown key names and long messages', () => {
    const raw = `{"type":"session.create","task":"t","${'k'.repeat(30_000)}":0}`;
    const error = refusal(raw);
    expect(JSON.stringify(error).length).toBeLessThan(2_048);
  });

  it('keeps every error frame of hostile input small (seeded fuzz)', () => {
    const hostileValue = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 200 }),
      fc.dictionary(fc.string({ maxLength: 300 }), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 300 }),
      fc.array(fc.jsonValue({ maxDepth: 4 }), { maxLength: 50 }),
    );
    fc.assert(
      fc.property(fc.constantFrom('session.create', 'step.correct', 'session.subscribe', 'sessions.watch'), fc.dictionary(fc.string({ maxLength: 100 }), hostileValue, { maxKeys: 60 }), (type, fields) => {
        const raw = JSON.stringify({ ...fields, type });
        const result = parseClientMessage(raw);
        if (result.ok) return;
        expect(result.error.details?.length ?? 0).toBeLessThanOrEqual(ERROR_LIMITS.detailsMax);
        expect(JSON.stringify(result.error).length).toBeLessThan(ERROR_LIMITS.detailsMax * 1_400 + 1_200);
      }),
      { seed: 1818, numRuns: 1_500 },
    );
  });
});
