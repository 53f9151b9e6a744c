import type { ChatCompletionFunctionTool } from 'openai/resources/chat/completions';
import { toolJsonSchema } from '../../tools/tool-json-schema.js';
import type { AgentToolbox } from '@interthought/agent';

/**
 * The registry's tools as the chat-completions `tools` parameter. Each function's JSON Schema is
 * the one the tool came with (an MCP server's, unchanged) or its zod `inputSchema` converted: the
 * same schema that checks the model's arguments.
 */
export function toolDefinitions(tools: AgentToolbox): ChatCompletionFunctionTool[] {
  return tools.list().map((tool) => ({
    type: 'function',
    function: { name: tool.name, description: tool.description, parameters: toolJsonSchema(tool) },
  }));
}
