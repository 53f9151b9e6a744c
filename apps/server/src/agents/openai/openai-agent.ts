import { OpenAI } from 'openai';
import type { Agent, AgentAvailability, AgentModels, AgentRunContext } from '@interthought/agent';
import type { ToolSelection } from '../tool-selection.js';
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

/** One agent on one OpenAI-compatible endpoint: the environment's `openai`, or an entry of the agents file. */
export interface OpenAIAgentSetup {
  name: string;
  /** One line for the picker; undefined: one that names the model and the endpoint. */
  description?: string;
  /** The endpoint's settings, or why they are unusable (the agent is then listed unavailable with it). */
  config: OpenAIConfig | { unusable: string };
  /** The models a session may pick; undefined: the configured model, and any other a session names. */
  models?: AgentModels;
  /** The tools it may call; undefined: every tool of the server. */
  tools?: ToolSelection;
  /** OpenAI's organization and project, sent with every request when set. */
  organization?: string;
  project?: string;
  /** The agents it may hand parts of its task to with `delegate` (registered names, PROTOCOL.md §24.8). */
  subagents?: readonly string[];
  /** Always its configured model, whatever model the session picked (a sub-agent that names its own). */
  ownModel?: boolean;
  /** It learns from earlier corrections, up to `max` lessons a run (`"lessons": true`, PROTOCOL.md §26.4). */
  lessons?: { readonly max: number };
}

/**
 * The `openai` agent: drives any OpenAI-compatible chat-completions endpoint configured by
 * environment variables (see `readOpenAIConfig`). A configuration that is missing or unusable
 * makes the agent unavailable with the reason, instead of failing the server's start.
 */
export function createOpenAIAgent(env: Env = process.env): Agent {
  let config: OpenAIAgentSetup['config'];
  try {
    config = readOpenAIConfig(env);
  } catch (error) {
    if (!(error instanceof OpenAIConfigError)) throw error;
    config = { unusable: error.message };
  }
  const setup: OpenAIAgentSetup = { name: 'openai', config };
  const organization = env.OPENAI_ORG_ID?.trim();
  const project = env.OPENAI_PROJECT_ID?.trim();
  if (organization) setup.organization = organization;
  if (project) setup.project = project;
  return openAIAgent(setup);
}

/** An agent on the endpoint `setup` describes; unavailable, with the reason, when its settings are unusable. */
export function openAIAgent(setup: OpenAIAgentSetup): Agent {
  const config = 'unusable' in setup.config ? undefined : setup.config;
  const availability: AgentAvailability = config === undefined ? { available: false, reason: (setup.config as { unusable: string }).unusable } : configAvailability(config);
  // The environment's one endpoint takes whatever model a session names, as it always has.
  const models = setup.models ?? (config === undefined ? undefined : { default: config.model, offered: [config.model], any: true });
  let client: OpenAI | undefined;
  const subagents = setup.subagents ?? [];
  const agent: Agent & { subagents?: readonly string[] } = {
    name: setup.name,
    description: setup.description ?? describe(config),
    // An operator's own description is theirs, in their words; the built-in one is said in Chinese too.
    ...(setup.description === undefined ? { descriptions: { zh: describeZh(config) } } : {}),
    ...(models === undefined ? {} : { models }),
    ...(subagents.length === 0 ? {} : { subagents: [...subagents] }),
    ...(setup.lessons === undefined ? {} : { lessons: setup.lessons }),
    availability: () => availability,
    async run(context: AgentRunContext): Promise<void> {
      if (!config || !availability.available) throw new Error(availability.available ? `The ${setup.name} agent is not configured.` : availability.reason);
      client ??= createClient(config, setup);
      let run = setup.tools === undefined ? context : { ...context, tools: setup.tools.of(context.tools) };
      if (setup.ownModel === true && run.options.model !== undefined) {
        const { model: _sessionModel, ...options } = run.options;
        run = { ...run, options };
      }
      await runAgentLoop(client, config, run, subagents);
    },
  };
  return agent;
}

function createClient(config: OpenAIConfig, setup: OpenAIAgentSetup): OpenAI {
  return new OpenAI({
    // Explicit values throughout: the SDK would otherwise read process.env, not the env given here.
    apiKey: config.apiKey ?? PLACEHOLDER_API_KEY,
    baseURL: config.baseURL ?? OPENAI_DEFAULT_BASE_URL,
    organization: setup.organization ?? null,
    project: setup.project ?? null,
    webhookSecret: null,
    timeout: config.timeoutMs,
    maxRetries: 0,
  });
}

function describeZh(config: OpenAIConfig | undefined): string {
  if (!config) return '任何兼容 OpenAI 接口的端点上的大模型（OpenAI、DeepSeek、通义千问、Ollama、vLLM 等）。';
  const where = config.baseURL ? new URL(config.baseURL).host : 'OpenAI';
  return `兼容 OpenAI 接口的端点上的大模型：${where} 上的 ${config.model}（每个会话可用 options.model 指定）。`;
}

function describe(config: OpenAIConfig | undefined): string {
  if (!config) return 'An LLM on any OpenAI-compatible endpoint (OpenAI, DeepSeek, Qwen, Ollama, vLLM …).';
  const where = config.baseURL ? new URL(config.baseURL).host : 'OpenAI';
  return `An LLM on an OpenAI-compatible endpoint: ${config.model} at ${where} (per session: options.model).`;
}
