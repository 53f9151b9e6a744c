import type { Agent, AgentModels } from '@interthought/agent';
import type { OpenAIEntry } from '../../config/agents-catalog.js';
import { OPENAI_LIMITS, defaultThoughtReplay, openAIAgent, type OpenAIAgentSetup, type OpenAIConfig } from '../openai/index.js';
import { ToolSelection } from '../tool-selection.js';

type Env = Record<string, string | undefined>;

/** The models an entry offers: its `model` (the default) first, then the others of `models`, each once. */
export function entryModels(entry: OpenAIEntry): AgentModels {
  return { default: entry.model, offered: [...new Set([entry.model, ...(entry.models ?? [])])] };
}

/**
 * Why the entry cannot reach its endpoint, or undefined when it can: a key variable that is not
 * set, or OpenAI itself without a key. Unavailable with the reason, it does not stop the server.
 */
function missingKey(name: string, entry: OpenAIEntry, apiKey: string | undefined): string | undefined {
  if (entry.apiKeyEnv !== undefined && apiKey === undefined) {
    return `Set ${entry.apiKeyEnv} to the API key of ${entry.baseURL === undefined ? 'OpenAI' : new URL(entry.baseURL).host} (agents.${name}.apiKeyEnv names it).`;
  }
  if (entry.baseURL === undefined && apiKey === undefined) {
    return `Give agents.${name} an "apiKeyEnv" naming the variable that holds its OpenAI key, or a "baseURL" of a local endpoint such as Ollama.`;
  }
  return undefined;
}

/** The endpoint settings of an entry, the defaults of the `openai` agent for what it leaves out. */
function entryConfig(entry: OpenAIEntry, apiKey: string | undefined): OpenAIConfig {
  const config: OpenAIConfig = {
    baseURL: entry.baseURL,
    apiKey,
    model: entry.model,
    maxIterations: entry.maxIterations ?? OPENAI_LIMITS.maxIterations.fallback,
    timeoutMs: entry.timeoutMs ?? OPENAI_LIMITS.timeoutMs.fallback,
    retry: {
      attempts: entry.retry?.attempts ?? OPENAI_LIMITS.retryAttempts.fallback,
      baseDelayMs: entry.retry?.baseDelayMs ?? OPENAI_LIMITS.retryBaseDelayMs.fallback,
      maxDelayMs: entry.retry?.maxDelayMs ?? OPENAI_LIMITS.retryMaxDelayMs.fallback,
    },
    thoughtReplay: entry.thoughts ?? defaultThoughtReplay(entry.baseURL),
  };
  if (entry.system !== undefined) config.system = entry.system;
  return config;
}

/** An `openai` entry of the agents file as an agent: its endpoint, key (read from the variable it names), models, prompt and tools. */
export function openAIEntryAgent(name: string, entry: OpenAIEntry, env: Env): Agent {
  const apiKey = entry.apiKeyEnv === undefined ? undefined : env[entry.apiKeyEnv]?.trim() || undefined;
  const unusable = missingKey(name, entry, apiKey);
  const setup: OpenAIAgentSetup = {
    name,
    config: unusable === undefined ? entryConfig(entry, apiKey) : { unusable },
    models: entryModels(entry),
  };
  if (entry.description !== undefined) setup.description = entry.description;
  else setup.description = `${entry.model} at ${entry.baseURL === undefined ? 'OpenAI' : new URL(entry.baseURL).host}.`;
  if (entry.tools !== undefined) setup.tools = new ToolSelection(entry.tools);
  if (entry.organization !== undefined) setup.organization = entry.organization;
  if (entry.project !== undefined) setup.project = entry.project;
  return openAIAgent(setup);
}
