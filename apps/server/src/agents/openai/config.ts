import type { AgentAvailability } from '@interthought/agent';

/** How a thought step is replayed to the model when the history is rebuilt from the chain. */
export type ThoughtReplay = 'think-tags' | 'reasoning-content';

/** Backoff for 429 and 5xx answers. */
export interface RetryConfig {
  /** Attempts in total, the first one included (1 = never retry). */
  attempts: number;
  /** The first wait; each later wait doubles it. */
  baseDelayMs: number;
  /** No wait is longer than this, whatever the endpoint's Retry-After asks. */
  maxDelayMs: number;
}

/** Where and how the `openai` agent talks to an OpenAI-compatible chat-completions endpoint. */
export interface OpenAIConfig {
  /** The endpoint's base URL (the part before `/chat/completions`); undefined means OpenAI's own. */
  baseURL: string | undefined;
  apiKey: string | undefined;
  /** The model when the session names none. */
  model: string;
  /** Model turns per run before the agent gives up. */
  maxIterations: number;
  /** How long the endpoint may stay silent (before its answer starts, or between two chunks). */
  timeoutMs: number;
  retry: RetryConfig;
  thoughtReplay: ThoughtReplay;
  /** The system prompt of every model turn; undefined: the agent's own (`SYSTEM_PROMPT`). */
  system?: string;
}

/** The settings' defaults and bounds, shared by the environment variables and the agents file. */
export const OPENAI_LIMITS = {
  maxIterations: { fallback: 8, min: 1, max: 100 },
  timeoutMs: { fallback: 120_000, min: 1, max: 3_600_000 },
  retryAttempts: { fallback: 3, min: 1, max: 10 },
  retryBaseDelayMs: { fallback: 1_000, min: 0, max: 60_000 },
  retryMaxDelayMs: { fallback: 30_000, min: 0, max: 600_000 },
} as const;

export const OPENAI_DEFAULT_BASE_URL = 'https://api.openai.com/v1';
export const DEFAULT_MODEL = 'gpt-4o-mini';
export const UNCONFIGURED_REASON =
  'Set OPENAI_API_KEY (or OPENAI_BASE_URL for a local endpoint such as Ollama) to use the openai agent.';
/** The same, for the 中文 picker (`GET /api/agents?lang=zh`). */
export const UNCONFIGURED_REASONS: Readonly<Record<string, string>> = {
  zh: '设置 OPENAI_API_KEY（或设置 OPENAI_BASE_URL 以使用 Ollama 等本地端点）后即可使用 openai 智能体。',
};

/** A configuration variable has a value the agent cannot use; the message names it and says what it expects. */
export class OpenAIConfigError extends Error {
  override readonly name = 'OpenAIConfigError';
}

type Env = Record<string, string | undefined>;

/** Read the agent's configuration from environment variables. Throws `OpenAIConfigError` for an unusable value. */
export function readOpenAIConfig(env: Env = process.env): OpenAIConfig {
  const baseURL = readBaseURL(env);
  return {
    baseURL,
    apiKey: readText(env, 'OPENAI_API_KEY'),
    model: readText(env, 'INTERTHOUGHT_MODEL') ?? DEFAULT_MODEL,
    maxIterations: readInteger(env, 'INTERTHOUGHT_OPENAI_MAX_ITERATIONS', OPENAI_LIMITS.maxIterations),
    timeoutMs: readInteger(env, 'INTERTHOUGHT_OPENAI_TIMEOUT_MS', OPENAI_LIMITS.timeoutMs),
    retry: {
      attempts: readInteger(env, 'INTERTHOUGHT_OPENAI_RETRY_ATTEMPTS', OPENAI_LIMITS.retryAttempts),
      baseDelayMs: readInteger(env, 'INTERTHOUGHT_OPENAI_RETRY_BASE_MS', OPENAI_LIMITS.retryBaseDelayMs),
      maxDelayMs: readInteger(env, 'INTERTHOUGHT_OPENAI_RETRY_MAX_MS', OPENAI_LIMITS.retryMaxDelayMs),
    },
    thoughtReplay: readThoughtReplay(env, baseURL),
  };
}

/** A local endpoint needs only a base URL; OpenAI itself needs a key. */
export function configAvailability(config: OpenAIConfig): AgentAvailability {
  if (config.baseURL === undefined && config.apiKey === undefined) return { available: false, reason: UNCONFIGURED_REASON, reasons: UNCONFIGURED_REASONS };
  return { available: true };
}

/** Unset and blank are the same: a `.env` line `OPENAI_BASE_URL=` means "not set". */
function readText(env: Env, name: string): string | undefined {
  const value = env[name]?.trim();
  return value ? value : undefined;
}

function readBaseURL(env: Env): string | undefined {
  const value = readText(env, 'OPENAI_BASE_URL');
  if (value === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new OpenAIConfigError(`OPENAI_BASE_URL must be an http(s) URL such as http://localhost:11434/v1, got "${value}".`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new OpenAIConfigError(`OPENAI_BASE_URL must use http or https, got "${value}".`);
  }
  return value.replace(/\/+$/, '');
}

function readInteger(env: Env, name: string, { fallback, min, max }: { fallback: number; min: number; max: number }): number {
  const value = readText(env, name);
  if (value === undefined) return fallback;
  const number = Number(value);
  if (!Number.isInteger(number) || number < min || number > max) {
    throw new OpenAIConfigError(`${name} must be a whole number from ${min} to ${max}, got "${value}".`);
  }
  return number;
}

/**
 * DeepSeek's thinking mode answers 400 unless every assistant message with tool calls carries its
 * `reasoning_content`, so that is the default there; elsewhere reasoning is replayed in
 * `<think>` tags, which every chat endpoint accepts as plain content.
 */
function readThoughtReplay(env: Env, baseURL: string | undefined): ThoughtReplay {
  const fallback = defaultThoughtReplay(baseURL);
  const value = readText(env, 'INTERTHOUGHT_OPENAI_THOUGHTS') ?? fallback;
  if (value === 'think-tags' || value === 'reasoning-content') return value;
  throw new OpenAIConfigError(`INTERTHOUGHT_OPENAI_THOUGHTS must be "think-tags" or "reasoning-content", got "${value}".`);
}

/** `reasoning-content` for DeepSeek's own endpoint, `think-tags` elsewhere (see `readThoughtReplay`). */
export function defaultThoughtReplay(baseURL: string | undefined): ThoughtReplay {
  return baseURL && /(^|\.)deepseek\.com$/.test(new URL(baseURL).hostname) ? 'reasoning-content' : 'think-tags';
}
