import { SpanKind, context, trace } from '@opentelemetry/api';
import { isMcpTool } from '../tools/mcp/mcp-tool.js';
import type { Tool } from '../tools/tool.js';
import {
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GEN_AI_TOOL_CALL_ID,
  ATTR_GEN_AI_TOOL_DESCRIPTION,
  ATTR_GEN_AI_TOOL_NAME,
  ATTR_GEN_AI_TOOL_TYPE,
  ATTR_MCP_SERVER,
  ATTR_STEP_ID,
  ATTR_TOOL_SOURCE,
  GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL,
} from './attributes.js';
import { activeTurn } from './turn-span.js';
import { endWithFailure, tracer } from './tracer.js';

/**
 * Run `execute` (one execution of `tool`) inside an `execute_tool <tool>` span, active while it
 * runs so an MCP call carries it to its server. A tool's error (a `ToolError` the observation
 * shows, or any other) sets status ERROR with its message; an abort of `signal` is no error.
 */
export function traceToolCall<T>(tool: Pick<Tool, 'name' | 'description'>, signal: AbortSignal, execute: () => Promise<T>): Promise<T> {
  const parent = context.active();
  const span = tracer().startSpan(
    `${GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL} ${tool.name}`,
    {
      kind: SpanKind.INTERNAL,
      attributes: {
        [ATTR_GEN_AI_OPERATION_NAME]: GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL,
        [ATTR_GEN_AI_TOOL_NAME]: tool.name,
        // The application runs every tool on the model's behalf: "function" in the GenAI conventions.
        [ATTR_GEN_AI_TOOL_TYPE]: 'function',
      },
    },
    parent,
  );
  if (!span.isRecording()) return execute();
  span.setAttribute(ATTR_GEN_AI_TOOL_DESCRIPTION, tool.description);
  if (isMcpTool(tool)) span.setAttributes({ [ATTR_TOOL_SOURCE]: 'mcp', [ATTR_MCP_SERVER]: tool.mcp.server });
  else span.setAttribute(ATTR_TOOL_SOURCE, 'builtin');
  const callStepId = activeTurn(parent)?.pendingCall(tool.name);
  // The call's step id is what identifies a call across Interthought (agents derive model-side ids from it).
  if (callStepId !== undefined) span.setAttributes({ [ATTR_STEP_ID]: callStepId, [ATTR_GEN_AI_TOOL_CALL_ID]: callStepId });
  let running: Promise<T>;
  try {
    running = context.with(trace.setSpan(parent, span), execute);
  } catch (error) {
    // A tool that throws before it returns its promise.
    endWithFailure(span, error, signal);
    throw error;
  }
  return running.then(
    (result) => {
      span.end();
      return result;
    },
    (error: unknown) => {
      endWithFailure(span, error, signal);
      throw error;
    },
  );
}
