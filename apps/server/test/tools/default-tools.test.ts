import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createDefaultTools } from '../../src/tools/index.js';

describe('createDefaultTools', () => {
  it('registers the calculator, the unit converter, the date calculator and ask_user', () => {
    expect(createDefaultTools().list().map((tool) => tool.name)).toEqual(['calculator', 'unit_converter', 'date_calculator', 'ask_user']);
  });

  it('returns a fresh registry each time', () => {
    expect(createDefaultTools()).not.toBe(createDefaultTools());
  });

  it('checks tool_call input as JSON against each schema, refusing unknown fields', () => {
    const tools = createDefaultTools();
    expect(tools.checkInput('calculator', '{"expression":"12 * 7"}')).toEqual({ ok: true, input: { expression: '12 * 7' } });
    expect(tools.checkInput('unit_converter', '{"value":3.5,"from":"h","to":"min"}').ok).toBe(true);
    expect(tools.checkInput('calculator', '{"expression":"1","extra":true}').ok).toBe(false);
    expect(tools.checkInput('unit_converter', '{"value":"3.5","from":"h","to":"min"}').ok).toBe(false);
    expect(tools.checkInput('calculator', 'not json').ok).toBe(false);
  });

  it('gives every tool a schema that converts to JSON Schema for LLM tool parameters', () => {
    for (const tool of createDefaultTools().list()) {
      const schema = z.toJSONSchema(tool.inputSchema, { io: 'input', target: 'draft-07' }) as { type?: string; properties?: object };
      expect(schema.type).toBe('object');
      expect(Object.keys(schema.properties ?? {}).length).toBeGreaterThan(0);
      expect(tool.description.length).toBeGreaterThan(20);
    }
  });
});
