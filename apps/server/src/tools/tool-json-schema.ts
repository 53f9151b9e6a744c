import { z } from 'zod';
import type { Tool } from './tool.js';

/**
 * A tool's input as JSON Schema (draft-07, without `$schema`), for an LLM's function parameters and
 * `GET /api/tools`: the schema the tool came with, or its zod `inputSchema` converted.
 */
export function toolJsonSchema(tool: Pick<Tool, 'inputSchema' | 'jsonSchema'>): Record<string, unknown> {
  if (tool.jsonSchema !== undefined) {
    const { $schema: _dialect, ...schema } = tool.jsonSchema;
    return schema;
  }
  // The model writes the input, so describe what the schema accepts (`io: 'input'`); a part
  // JSON Schema cannot express becomes "any value" rather than failing the whole request.
  const { $schema: _dialect, ...schema } = z.toJSONSchema(tool.inputSchema, { io: 'input', unrepresentable: 'any', target: 'draft-07' });
  return schema;
}
