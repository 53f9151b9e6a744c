import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CLIENT_MESSAGE_TYPES, ERROR_CODES, ServerMessageSchema, parseClientMessage, type ParseResult } from '../src/index.js';

/** Whatever happened, the result is a message or an `error` frame the server may send as is. */
function expectWellFormed(result: ParseResult): void {
  if (result.ok) {
    expect(CLIENT_MESSAGE_TYPES).toContain(result.message.type);
    return;
  }
  expect(ServerMessageSchema.parse(result.error)).toEqual(result.error);
  expect(Object.values(ERROR_CODES)).toContain(result.error.code);
}

function parseNeverThrows(raw: string | Uint8Array): void {
  let result: ParseResult | undefined;
  expect(() => {
    result = parseClientMessage(raw);
  }).not.toThrow();
  expectWellFormed(result!);
}

/** Frames that look like requests: a known type, then arbitrary fields (often the right names). */
const requestLike = fc.record(
  {
    type: fc.oneof(fc.constantFrom(...CLIENT_MESSAGE_TYPES), fc.string()),
    id: fc.oneof(fc.string({ maxLength: 80 }), fc.integer(), fc.constant(null)),
    sessionId: fc.oneof(fc.string(), fc.jsonValue()),
    stepId: fc.string(),
    task: fc.oneof(fc.string(), fc.jsonValue()),
    content: fc.string(),
    afterSeq: fc.oneof(fc.double(), fc.integer(), fc.string()),
    options: fc.oneof(fc.jsonValue(), fc.record({ tokenDelayMs: fc.double(), temperature: fc.double(), model: fc.string() }, { requiredKeys: [] })),
  },
  { requiredKeys: ['type'] },
);

/** Nesting `depth` levels deep, as arrays or objects. */
function nested(depth: number, asObject: boolean): string {
  return asObject ? `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}` : `${'['.repeat(depth)}${']'.repeat(depth)}`;
}

describe('parseClientMessage never throws', () => {
  it('on arbitrary strings', () => {
    fc.assert(fc.property(fc.string({ unit: 'binary', maxLength: 300 }), parseNeverThrows), { numRuns: 500 });
  });

  it('on arbitrary bytes', () => {
    fc.assert(fc.property(fc.uint8Array({ maxLength: 300 }), parseNeverThrows), { numRuns: 500 });
  });

  it('on arbitrary JSON values', () => {
    fc.assert(fc.property(fc.jsonValue(), (value) => parseNeverThrows(JSON.stringify(value) ?? 'null')), { numRuns: 500 });
  });

  it('on request-like objects with arbitrary field values', () => {
    fc.assert(fc.property(requestLike, (frame) => parseNeverThrows(JSON.stringify(frame))), { numRuns: 1_000 });
  });

  it('on objects with __proto__, constructor and prototype keys, and refuses them as unknown fields', () => {
    const dangerous = fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty');
    fc.assert(
      fc.property(fc.constantFrom(...CLIENT_MESSAGE_TYPES), dangerous, fc.jsonValue(), (type, key, value) => {
        const raw = `{"type":${JSON.stringify(type)},"sessionId":"s","task":"t","stepId":"x","content":"c",${JSON.stringify(key)}:${JSON.stringify(value) ?? 'null'}}`;
        const result = parseClientMessage(raw);
        expectWellFormed(result);
        expect(result.ok).toBe(false);
        if (!result.ok) expect(result.error.details).toContainEqual({ path: [key], message: `Unknown field "${key}"` });
        // Nothing leaked into the prototype of plain objects.
        expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      }),
      { numRuns: 300 },
    );
  });

  it('on a __proto__ key that tries to pollute Object.prototype', () => {
    const result = parseClientMessage('{"type":"session.create","task":"x","__proto__":{"polluted":true,"type":"session.cancel"}}');
    expect(result.ok).toBe(false);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('on deep nesting, at the root and inside a field', () => {
    for (const depth of [10, 1_000, 100_000]) {
      for (const asObject of [false, true]) {
        parseNeverThrows(nested(depth, asObject));
        parseNeverThrows(`{"type":"session.create","task":"x","options":${nested(depth, asObject)}}`);
        parseNeverThrows(`{"type":"session.create","task":${nested(depth, asObject)}}`);
      }
    }
  });

  it('on huge and odd numbers where numbers go', () => {
    const numbers = fc.oneof(
      fc.constantFrom('1e400', '-1e400', '1e-400', '123456789012345678901234567890', '9007199254740993', '-0', '0.1e1'),
      fc.double().filter(Number.isFinite).map(String),
      fc.bigInt().map(String),
    );
    fc.assert(
      fc.property(numbers, (number) => {
        parseNeverThrows(`{"type":"session.subscribe","sessionId":"s","afterSeq":${number}}`);
        parseNeverThrows(`{"type":"step.correct","sessionId":"s","stepId":"t","content":"c","baseRevision":${number}}`);
        parseNeverThrows(`{"type":"session.create","task":"t","options":{"tokenDelayMs":${number},"temperature":${number}}}`);
      }),
      { numRuns: 300 },
    );
  });

  it('refuses an afterSeq that JSON reads as Infinity', () => {
    const result = parseClientMessage('{"type":"session.subscribe","sessionId":"s","afterSeq":1e400}');
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error.details?.[0]?.path).toEqual(['afterSeq']);
  });
});
