import { describe, expect, it } from 'vitest';
import { inputCheckOf } from '../../../src/tools/mcp/input-schema.js';

describe('inputCheckOf', () => {
  it('checks with zod what zod can express, naming the field', () => {
    const check = inputCheckOf({ type: 'object', properties: { n: { type: 'integer', minimum: 1 } }, required: ['n'], additionalProperties: false });
    expect(check.checkedBy).toBe('zod');
    expect(check.schema.safeParse({ n: 2 }).success).toBe(true);
    expect(check.schema.safeParse({ n: 0 }).error?.issues).toEqual([expect.objectContaining({ path: ['n'] })]);
    expect(check.schema.safeParse({ n: 2, m: 1 }).success).toBe(false);
    expect(check.schema.safeParse([]).success).toBe(false);
  });

  it('checks with the JSON Schema validator what zod cannot express (not, if/then/else)', () => {
    const check = inputCheckOf({ $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', not: { required: ['a'] } });
    expect(check.checkedBy).toBe('json-schema');
    expect(check.schema.safeParse({ b: 1 }).success).toBe(true);
    expect(check.schema.safeParse({ a: 1 }).error?.issues).toEqual([expect.objectContaining({ message: 'data must NOT be valid' })]);
  });

  it('leaves a schema neither can compile to the server, accepting any object', () => {
    const check = inputCheckOf({ type: 'object', properties: { a: { $ref: '#/$defs/missing' } } });
    expect(check.checkedBy).toBe('server');
    expect(check.schema.safeParse({ a: 'anything' }).success).toBe(true);
    expect(check.schema.safeParse('text').success).toBe(false);
  });
});
