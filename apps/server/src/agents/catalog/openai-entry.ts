import { DELEGATE_TOOL } from '@interthought/protocol';
import type { Agent, AgentModels } from '@interthought/agent';
import type { OpenAIEntry } from '../../config/agents-catalog.js';
import { OPENAI_LIMITS, defaultThoughtReplay, openAIAgent, type OpenAIAgentSetup, type OpenAIConfig } from '../openai/index.js';
import { ToolSelection } from '../tool-selection.js';
import { lessonsOf } from './entry-lessons.js';

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

/** An `openai` entry of the agents file as an agent: its endpoint, key (read from the variable it names), models, prompt, tools and sub-agents. */
export function openAIEntryAgent(name: string, entry: OpenAIEntry, env: Env): Agent {
  return openAIAgent(openAIEntryAgentSetup(name, entry, env));
}

function openAIEntryAgentSetup(name: string, entry: OpenAIEntry, env: Env): OpenAIAgentSetup {
  const apiKey = entry.apiKeyEnv === undefined ? undefined : env[entry.apiKeyEnv]?.trim() || undefined;
  const unusable = missingKey(name, entry, apiKey);
  const setup: OpenAIAgentSetup = {
    name,
    config: unusable === undefined ? entryConfig(entry, apiKey) : { unusable },
    models: entryModels(entry),
  };
  if (entry.description !== undefined) setup.description = entry.description;
  else setup.description = `${entry.model} at ${entry.baseURL === undefined ? 'OpenAI' : new URL(entry.baseURL).host}.`;
  const subagents = (entry.subagents ?? []).map((subagent) => subagent.name);
  // An agent with sub-agents delegates to them whatever its own tool list says.
  if (entry.tools !== undefined) setup.tools = new ToolSelection(subagents.length === 0 ? entry.tools : [...entry.tools, DELEGATE_TOOL]);
  if (entry.organization !== undefined) setup.organization = entry.organization;
  if (entry.project !== undefined) setup.project = entry.project;
  if (subagents.length > 0) setup.subagents = subagents;
  const lessons = lessonsOf(entry);
  if (lessons !== undefined) setup.lessons = lessons;
  return setup;
}

/**
 * The sub-agents an `openai` entry lists (PROTOCOL.md §24.8), each an agent of the server on the
 * entry's endpoint: its own system prompt, tools and model where it names them, the entry's
 * otherwise. One that names its model keeps it whatever model the session picked.
 */
export function openAISubagents(parent: string, entry: OpenAIEntry, env: Env): Agent[] {
  return (entry.subagents ?? []).map((subagent) => {
    // A sub-agent works on what it is delegated: the lessons of the session are its parent's.
    const { subagents: _none, models: _models, description: _description, lessons: _lessons, lessonsMax: _lessonsMax, ...shared } = entry;
    const own: OpenAIEntry = {
      ...shared,
      model: subagent.model ?? entry.model,
      description: `A sub-agent of ${parent}${subagent.system === undefined ? '' : ` (${oneLine(subagent.system)})`}.`,
    };
    if (subagent.system !== undefined) own.system = subagent.system;
    if (subagent.tools !== undefined) own.tools = subagent.tools;
    const agent = openAIEntryAgentSetup(subagent.name, own, env);
    if (subagent.model !== undefined) agent.ownModel = true;
    return openAIAgent(agent);
  });
}

function oneLine(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 120 ? `${line.slice(0, 119)}…` : line;
}
