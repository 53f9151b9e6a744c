/**
 * The attribute names of Interthought's spans: the OpenTelemetry GenAI conventions (from the
 * `incubating` entry point: the GenAI names are not stable yet, and the package is pinned
 * exactly, so a rename cannot slip in with an update) and Interthought's own `interthought.*`.
 */
export { ATTR_ERROR_TYPE, ATTR_SERVER_ADDRESS, ATTR_SERVER_PORT, ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from '@opentelemetry/semantic-conventions';
export {
  ATTR_GEN_AI_AGENT_NAME,
  ATTR_GEN_AI_CONVERSATION_ID,
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GEN_AI_PROVIDER_NAME,
  ATTR_GEN_AI_REQUEST_MODEL,
  ATTR_GEN_AI_REQUEST_TEMPERATURE,
  ATTR_GEN_AI_RESPONSE_FINISH_REASONS,
  ATTR_GEN_AI_RESPONSE_ID,
  ATTR_GEN_AI_RESPONSE_MODEL,
  ATTR_GEN_AI_RESPONSE_TIME_TO_FIRST_CHUNK,
  ATTR_GEN_AI_TOOL_CALL_ID,
  ATTR_GEN_AI_TOOL_DESCRIPTION,
  ATTR_GEN_AI_TOOL_NAME,
  ATTR_GEN_AI_TOOL_TYPE,
  ATTR_GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_OUTPUT_TOKENS,
  ATTR_GEN_AI_USAGE_REASONING_OUTPUT_TOKENS,
  GEN_AI_OPERATION_NAME_VALUE_CHAT,
  GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL,
  GEN_AI_OPERATION_NAME_VALUE_INVOKE_AGENT,
  GEN_AI_PROVIDER_NAME_VALUE_OPENAI,
} from '@opentelemetry/semantic-conventions/incubating';

/** The session a span belongs to. */
export const ATTR_SESSION_ID = 'interthought.session.id';
/** The session's revision when the run started (each accepted correction adds one). */
export const ATTR_REVISION = 'interthought.revision';
/** True when the run continues from a step the user corrected. */
export const ATTR_CORRECTION = 'interthought.correction';
/** The agent kind the run drives (`demo`, `openai` …). */
export const ATTR_AGENT = 'interthought.agent';
/** The `tool_call` step a tool execution answers. */
export const ATTR_STEP_ID = 'interthought.step.id';
/** Where a tool comes from: `builtin` or `mcp`. */
export const ATTR_TOOL_SOURCE = 'interthought.tool.source';
/** The MCP server (its name in the MCP config file) of an MCP tool. */
export const ATTR_MCP_SERVER = 'interthought.mcp.server';
/** Seconds from the request to the first chunk that carries text, reasoning or a tool call. */
export const ATTR_TIME_TO_FIRST_TOKEN = 'interthought.time_to_first_token';
/** Why a run or call was aborted (a correction, a cancel, an approval wait, a shutdown …). */
export const ATTR_ABORT_REASON = 'interthought.abort.reason';

/** The event a span gets when its work was aborted: no error, the session moved on. */
export const EVENT_ABORTED = 'interthought.aborted';
