import type { ChatCompletionFunctionTool } from 'openai/resources/chat/completions';
import { toolJsonSchema } from '../../tools/tool-json-schema.js';
import type { AgentTool, AgentToolbox } from '@interthought/agent';
import { ASK_USER_TOOL, DELEGATE_TOOL } from '@interthought/protocol';
import { askUserTool } from '../../tools/ask-user.js';

/**
 * The registry's tools as the chat-completions `tools` parameter. Each function's JSON Schema is
 * the one the tool came with (an MCP server's, unchanged) or its zod `inputSchema` converted: the
 * same schema that checks the model's arguments.
 */
export function toolDefinitions(tools: AgentToolbox, subagents: readonly string[] = []): ChatCompletionFunctionTool[] {
  return offeredTools(tools).map((tool) => ({
    type: 'function',
    function: { name: tool.name, description: tool.description, parameters: tool.name === DELEGATE_TOOL ? delegateSchema(toolJsonSchema(tool), subagents) : toolJsonSchema(tool) },
  }));
}

/**
 * The tools the model is offered: the run's, and `ask_user` whatever they are — every agent is
 * offered it (PROTOCOL.md §25.1), so a toolbox that leaves it out (a server's own registry) still does.
 */
function offeredTools(tools: AgentToolbox): readonly AgentTool[] {
  const listed = tools.list();
  return listed.some((tool) => tool.name === ASK_USER_TOOL) ? listed : [...listed, askUserTool];
}

/** `delegate`'s schema with `agent` one of the agent's sub-agents (PROTOCOL.md §24.8); absent, the agent itself. */
function delegateSchema(schema: Record<string, unknown>, subagents: readonly string[]): Record<string, unknown> {
  const properties = (schema.properties ?? {}) as Record<string, Record<string, unknown>>;
  if (subagents.length === 0 || properties.agent === undefined) return schema;
  const agent = { ...properties.agent, enum: [...subagents], description: `Which sub-agent works on the task: ${subagents.join(', ')}. Leave it out to work on it as yourself.` };
  return { ...schema, properties: { ...properties, agent } };
}
