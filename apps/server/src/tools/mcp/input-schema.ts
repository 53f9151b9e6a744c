import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { z } from 'zod';

/** A JSON Schema as an MCP server sends it (`Tool.inputSchema`, always `type: "object"`). */
export type JsonSchemaObject = Record<string, unknown>;

/** The arguments of an MCP tool call: a JSON object. */
export type McpArguments = Record<string, unknown>;

export type InputCheck = { schema: z.ZodType<McpArguments>; checkedBy: 'zod' | 'json-schema' | 'server' };

const ajv = new AjvJsonSchemaValidator();
const anyObject = z.record(z.string(), z.unknown());

/**
 * A zod schema that checks a tool's input against the server's JSON Schema, so that agent calls
 * and user corrections are refused (with the field named) before they reach the server.
 *
 * zod's `fromJSONSchema` is used when it can express the schema: its issues name the field. It
 * refuses some keywords (if/then/else, not, dependentSchemas…); such a schema is checked by the
 * SDK's own JSON Schema validator (ajv) instead, whose one message names the field in its text.
 * A schema neither can compile leaves the check to the server (`checkedBy: 'server'`).
 */
export function inputCheckOf(jsonSchema: JsonSchemaObject): InputCheck {
  try {
    const converted = z.fromJSONSchema(jsonSchema as z.core.JSONSchema.JSONSchema);
    // MCP input schemas are `type: "object"`, so what passes is an object.
    return { schema: converted as z.ZodType<McpArguments>, checkedBy: 'zod' };
  } catch {
    // Not expressible in zod: fall through to ajv.
  }
  try {
    // ajv knows draft-07 without a `$schema`; with a newer dialect's URI it would refuse to compile.
    const { $schema: _dialect, ...schema } = jsonSchema;
    const validate = ajv.getValidator<McpArguments>(schema);
    const checked = anyObject.superRefine((input, ctx) => {
      const result = validate(input);
      if (!result.valid) ctx.addIssue({ code: 'custom', message: result.errorMessage });
    });
    return { schema: checked, checkedBy: 'json-schema' };
  } catch {
    return { schema: anyObject, checkedBy: 'server' };
  }
}
