import { OpenAI } from 'openai';
import type { Agent, AgentAvailability, AgentRunContext } from '@interthought/agent';
import { runAgentLoop } from './agent-loop.js';
import {
  OPENAI_DEFAULT_BASE_URL,
  OpenAIConfigError,
  configAvailability,
  readOpenAIConfig,
  type OpenAIConfig,
} from './config.js';

/** Local endpoints (Ollama, vLLM, llama.cpp, LM Studio) need no key, but the SDK insists on one. */
const PLACEHOLDER_API_KEY = 'interthought-local-endpoint';

type Env = Record<string, string | undefined>;

/**
 * The `openai` agent: drives any OpenAI-compatible chat-completions endpoint configured by
 * environment variables (see `readOpenAIConfig`). A configuration that is missing or unusable
 * makes the agent unavailable with the reason, instead of failing the server's start.
 */
export function createOpenAIAgent(env: Env = process.env): Agent {
  let config: OpenAIConfig | undefined;
  let availability: AgentAvailability;
  try {
    config = readOpenAIConfig(env);
    availability = configAvailability(config);
  } catch (error) {
    if (!(error instanceof OpenAIConfigError)) throw error;
    availability = { available: false, reason: error.message };
  }
  let client: OpenAI | undefined;
  return {
    name: 'openai',
    description: describe(config),
    availability: () => availability,
    async run(context: AgentRunContext): Promise<void> {
      if (!config || !availability.available) throw new Error(availability.available ? 'The openai agent is not configured.' : availability.reason);
      client ??= createClient(config, env);
      await runAgentLoop(client, config, context);
    },
  };
}

function createClient(config: OpenAIConfig, env: Env): OpenAI {
  return new OpenAI({
    // Explicit values throughout: the SDK would otherwise read process.env, not the env given here.
    apiKey: config.apiKey ?? PLACEHOLDER_API_KEY,
    baseURL: config.baseURL ?? OPENAI_DEFAULT_BASE_URL,
    organization: env.OPENAI_ORG_ID?.trim() || null,
    project: env.OPENAI_PROJECT_ID?.trim() || null,
    webhookSecret: null,
    timeout: config.timeoutMs,
    maxRetries: 0,
  });
}

function describe(config: OpenAIConfig | undefined): string {
  if (!config) return 'An LLM on any OpenAI-compatible endpoint (OpenAI, DeepSeek, Qwen, Ollama, vLLM …).';
  const where = config.baseURL ? new URL(config.baseURL).host : 'OpenAI';
  return `An LLM on an OpenAI-compatible endpoint: ${config.model} at ${where} (per session: options.model).`;
}
