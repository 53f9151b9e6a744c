import { describe, expect, it } from 'vitest';
import {
  createOpenAIAgent,
  DEFAULT_MODEL,
  OpenAIConfigError,
  readOpenAIConfig,
  UNCONFIGURED_REASON,
  UNCONFIGURED_REASONS,
} from '../../../src/agents/openai/index.js';
import { testRun } from './support/run-context.js';

describe('openai agent: availability', () => {
  it('is unavailable with a reason that says what to set when neither a base URL nor a key is set', async () => {
    const agent = createOpenAIAgent({});

    expect(agent.name).toBe('openai');
    expect(agent.availability()).toEqual({ available: false, reason: UNCONFIGURED_REASON, reasons: UNCONFIGURED_REASONS });
    expect(UNCONFIGURED_REASON).toMatch(/^Set OPENAI_API_KEY \(or OPENAI_BASE_URL for a local endpoint such as Ollama\)/);
    await expect(agent.run(testRun().context)).rejects.toThrow(UNCONFIGURED_REASON);
  });

  it('treats blank variables as unset', () => {
    expect(createOpenAIAgent({ OPENAI_BASE_URL: '  ', OPENAI_API_KEY: '' }).availability().available).toBe(false);
  });

  it('is available with a base URL and no key (a local endpoint)', () => {
    expect(createOpenAIAgent({ OPENAI_BASE_URL: 'http://localhost:11434/v1' }).availability()).toEqual({ available: true });
  });

  it('is available with a key and no base URL (OpenAI itself)', () => {
    expect(createOpenAIAgent({ OPENAI_API_KEY: 'sk-test' }).availability()).toEqual({ available: true });
  });

  it('is unavailable, naming the variable, when a setting is unusable', () => {
    const agent = createOpenAIAgent({ OPENAI_API_KEY: 'sk-test', INTERTHOUGHT_OPENAI_MAX_ITERATIONS: 'lots' });

    expect(agent.availability()).toEqual({
      available: false,
      reason: 'INTERTHOUGHT_OPENAI_MAX_ITERATIONS must be a whole number from 1 to 100, got "lots".',
    });
  });
});

describe('readOpenAIConfig', () => {
  it('applies the defaults', () => {
    expect(readOpenAIConfig({ OPENAI_API_KEY: 'sk-test' })).toEqual({
      baseURL: undefined,
      apiKey: 'sk-test',
      model: DEFAULT_MODEL,
      maxIterations: 8,
      timeoutMs: 120_000,
      retry: { attempts: 3, baseDelayMs: 1_000, maxDelayMs: 30_000 },
      thoughtReplay: 'think-tags',
    });
  });

  it('reads every setting', () => {
    const config = readOpenAIConfig({
      OPENAI_BASE_URL: 'https://api.deepseek.com/v1/',
      INTERTHOUGHT_MODEL: 'deepseek-reasoner',
      INTERTHOUGHT_OPENAI_MAX_ITERATIONS: '12',
      INTERTHOUGHT_OPENAI_TIMEOUT_MS: '30000',
      INTERTHOUGHT_OPENAI_RETRY_ATTEMPTS: '5',
      INTERTHOUGHT_OPENAI_RETRY_BASE_MS: '250',
      INTERTHOUGHT_OPENAI_RETRY_MAX_MS: '8000',
      INTERTHOUGHT_OPENAI_THOUGHTS: 'reasoning-content',
    });

    expect(config).toEqual({
      baseURL: 'https://api.deepseek.com/v1',
      apiKey: undefined,
      model: 'deepseek-reasoner',
      maxIterations: 12,
      timeoutMs: 30_000,
      retry: { attempts: 5, baseDelayMs: 250, maxDelayMs: 8_000 },
      thoughtReplay: 'reasoning-content',
    });
  });

  it('replays reasoning as reasoning_content by default for DeepSeek, whose thinking mode requires it', () => {
    expect(readOpenAIConfig({ OPENAI_BASE_URL: 'https://api.deepseek.com' }).thoughtReplay).toBe('reasoning-content');
    expect(readOpenAIConfig({ OPENAI_BASE_URL: 'http://localhost:11434/v1' }).thoughtReplay).toBe('think-tags');
    expect(readOpenAIConfig({ OPENAI_BASE_URL: 'https://api.deepseek.com', INTERTHOUGHT_OPENAI_THOUGHTS: 'think-tags' }).thoughtReplay).toBe(
      'think-tags',
    );
  });

  it.each([
    [{ OPENAI_BASE_URL: 'localhost:11434' }, /OPENAI_BASE_URL must use http or https/],
    [{ OPENAI_BASE_URL: 'not a url' }, /OPENAI_BASE_URL must be an http\(s\) URL/],
    [{ INTERTHOUGHT_OPENAI_TIMEOUT_MS: '1.5' }, /INTERTHOUGHT_OPENAI_TIMEOUT_MS must be a whole number/],
    [{ INTERTHOUGHT_OPENAI_RETRY_ATTEMPTS: '0' }, /INTERTHOUGHT_OPENAI_RETRY_ATTEMPTS must be a whole number from 1 to 10/],
    [{ INTERTHOUGHT_OPENAI_THOUGHTS: 'xml' }, /INTERTHOUGHT_OPENAI_THOUGHTS must be "think-tags" or "reasoning-content"/],
  ])('refuses %o with a typed error', (env, message) => {
    expect(() => readOpenAIConfig(env)).toThrow(OpenAIConfigError);
    expect(() => readOpenAIConfig(env)).toThrow(message);
  });
});
