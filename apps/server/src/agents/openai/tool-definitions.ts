import { z } from 'zod';
import type { ChatCompletionFunctionTool } from 'openai/resources/chat/completions';
import type { ToolRegistry } from '../../tools/tool-registry.js';

/**
 * The registry's tools as the chat-completions `tools` parameter. Each tool's zod `inputSchema`
 * (the same schema that checks the model's arguments) becomes the function's JSON Schema.
 */
export function toolDefinitions(tools: ToolRegistry): ChatCompletionFunctionTool[] {
  return tools.list().map((tool) => {
    // The model writes the input, so describe what the schema accepts (`io: 'input'`); a part
    // JSON Schema cannot express becomes "any value" rather than failing the whole request.
    const { $schema: _dialect, ...parameters } = z.toJSONSchema(tool.inputSchema, {
      io: 'input',
      unrepresentable: 'any',
      target: 'draft-07',
    });
    return { type: 'function', function: { name: tool.name, description: tool.description, parameters } };
  });
}
