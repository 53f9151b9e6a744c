export { createOpenAIAgent, openAIAgent, type OpenAIAgentSetup } from './openai-agent.js';
export {
  readOpenAIConfig,
  defaultThoughtReplay,
  OPENAI_LIMITS,
  configAvailability,
  OpenAIConfigError,
  UNCONFIGURED_REASON,
  UNCONFIGURED_REASONS,
  DEFAULT_MODEL,
  type OpenAIConfig,
  type RetryConfig,
  type ThoughtReplay,
} from './config.js';
export { OpenAIEndpointError } from './endpoint-errors.js';
