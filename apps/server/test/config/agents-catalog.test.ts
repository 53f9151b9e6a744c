import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/index.js';
import { AgentsCatalogError, readAgentsCatalog } from '../../src/config/agents-catalog.js';

const folder = mkdtempSync(join(tmpdir(), 'interthought-agents-'));
let files = 0;

/** The agents file with `content` (an object is written as JSON), and its path. */
function agentsFile(content: unknown): string {
  const file = join(folder, `agents-${++files}.json`);
  writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
  return file;
}

/** The problems `readAgentsCatalog` names for the file (fails the test if it accepts it). */
function problemsOf(file: string): string[] {
  try {
    readAgentsCatalog(file);
  } catch (error) {
    if (error instanceof AgentsCatalogError) return error.problems.map((problem) => `${problem.variable}: ${problem.problem}`);
    throw error;
  }
  throw new Error('expected an AgentsCatalogError');
}

const deepseek = { type: 'openai', description: 'DeepSeek', baseURL: 'https://api.deepseek.com/v1', apiKeyEnv: 'DEEPSEEK_API_KEY', model: 'deepseek-chat' };

describe('the agents file', () => {
  it('reads every kind of entry, in the file’s order', () => {
    const file = agentsFile({
      agents: {
        deepseek: { ...deepseek, models: ['deepseek-reasoner'], system: 'Be brief.', tools: ['calculator', 'mcp__github__*'], thoughts: 'reasoning-content', maxIterations: 4, timeoutMs: 30_000, retry: { attempts: 2 } },
        local: { type: 'openai', baseURL: 'http://localhost:11434/v1/', model: 'qwen3:14b' },
        builder: { type: 'remote', description: 'Builds on our workers' },
        copilot: { type: 'ag-ui', description: 'An AG-UI endpoint', url: 'https://agents.example.com/run', headers: { Authorization: 'Bearer ${COPILOT_TOKEN}' } },
      },
    });

    const catalog = readAgentsCatalog(file);

    expect(catalog.file).toBe(file);
    expect(catalog.agents.map(({ name, entry }) => `${name}:${entry.type}`)).toEqual(['deepseek:openai', 'local:openai', 'builder:remote', 'copilot:ag-ui']);
    expect(catalog.agents[0]?.entry).toEqual({ ...deepseek, models: ['deepseek-reasoner'], system: 'Be brief.', tools: ['calculator', 'mcp__github__*'], thoughts: 'reasoning-content', maxIterations: 4, timeoutMs: 30_000, retry: { attempts: 2 } });
    expect(catalog.agents[1]?.entry).toEqual({ type: 'openai', baseURL: 'http://localhost:11434/v1', model: 'qwen3:14b' });
  });

  it('is read by loadConfig from INTERTHOUGHT_AGENTS_CONFIG, and absent without it', () => {
    const file = agentsFile({ agents: { deepseek } });
    expect(loadConfig({ INTERTHOUGHT_AGENTS_CONFIG: file }).agentsCatalog?.agents.map(({ name }) => name)).toEqual(['deepseek']);
    expect(loadConfig({}).agentsCatalog).toBeUndefined();
  });

  it('refuses a key in the file, pointing at it and at apiKeyEnv', () => {
    const file = agentsFile({ agents: { deepseek: { ...deepseek, apiKey: 'sk-secret' } } });
    const problems = problemsOf(file);
    expect(problems).toEqual([
      `INTERTHOUGHT_AGENTS_CONFIG: ${file}: agents.deepseek.apiKey: keys are never read from this file: put the key in an environment variable and name that variable in "apiKeyEnv"`,
    ]);
    expect(problems.join('\n')).not.toContain('sk-secret');
  });

  const BAD_ENTRIES: Array<{ what: string; entry: unknown; path: string; reason: RegExp }> = [
    { what: 'a base URL that is not http(s)', entry: { ...deepseek, baseURL: 'ftp://api.deepseek.com' }, path: 'agents.deepseek.baseURL', reason: /must be an http:\/\/ or https:\/\/ URL/ },
    { what: 'no model', entry: { type: 'openai', baseURL: 'http://localhost:11434/v1' }, path: 'agents.deepseek.model', reason: /must be a model name/ },
    { what: 'a key variable that is not a variable name', entry: { ...deepseek, apiKeyEnv: 'sk-abc 123' }, path: 'agents.deepseek.apiKeyEnv', reason: /must name an environment variable/ },
    { what: 'an unknown kind', entry: { type: 'langgraph', description: 'x' }, path: 'agents.deepseek.type', reason: /must be "openai", "ag-ui" or "remote", got "langgraph"/ },
    { what: 'an unknown field', entry: { ...deepseek, temprature: 1 }, path: 'agents.deepseek', reason: /unknown field "temprature" for a "openai" agent/ },
    { what: 'an unknown thoughts mode', entry: { ...deepseek, thoughts: 'hidden' }, path: 'agents.deepseek.thoughts', reason: /must be "think-tags" or "reasoning-content"/ },
    { what: 'a limit out of range', entry: { ...deepseek, maxIterations: 0 }, path: 'agents.deepseek.maxIterations', reason: /must be at least 1/ },
    { what: 'a retry setting out of range', entry: { ...deepseek, retry: { attempts: 11 } }, path: 'agents.deepseek.retry.attempts', reason: /must be at most 10/ },
    { what: 'a model list with a blank model', entry: { ...deepseek, models: ['deepseek-reasoner', ' '] }, path: 'agents.deepseek.models.1', reason: /must be a model name/ },
    { what: 'a tool that is no name nor glob', entry: { ...deepseek, tools: ['rm -rf'] }, path: 'agents.deepseek.tools.0', reason: /must be a tool name or a glob/ },
    { what: 'a remote agent without a description', entry: { type: 'remote' }, path: 'agents.deepseek.description', reason: /must be a string/ },
    { what: 'an AG-UI agent without a url', entry: { type: 'ag-ui', description: 'x' }, path: 'agents.deepseek.url', reason: /must be an http/ },
    { what: 'an AG-UI header naming a variable badly', entry: { type: 'ag-ui', description: 'x', url: 'https://a.example', headers: { Authorization: 'Bearer ${my token}' } }, path: 'agents.deepseek.headers.Authorization', reason: /\$\{NAME\}/ },
    { what: 'an AG-UI stall timeout out of range', entry: { type: 'ag-ui', description: 'x', url: 'https://a.example', timeoutMs: 10 }, path: 'agents.deepseek.timeoutMs', reason: /must be at least 1000/ },
    { what: 'AG-UI retries that are not whole', entry: { type: 'ag-ui', description: 'x', url: 'https://a.example', retries: 1.5 }, path: 'agents.deepseek.retries', reason: /must be a whole number from 0 to 10/ },
    { what: 'an entry that is not an object', entry: 'openai', path: 'agents.deepseek', reason: /must be an object/ },
  ];

  for (const { what, entry, path, reason } of BAD_ENTRIES) {
    it(`refuses ${what}, naming the file and ${path}`, () => {
      const file = agentsFile({ agents: { deepseek: entry } });
      const problems = problemsOf(file);
      expect(problems).toHaveLength(1);
      expect(problems[0]).toMatch(new RegExp(`^INTERTHOUGHT_AGENTS_CONFIG: ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: ${path.replace(/\./g, '\\.')}: `));
      expect(problems[0]).toMatch(reason);
    });
  }

  it('names every bad entry at once', () => {
    const file = agentsFile({ agents: { a: { type: 'remote' }, b: deepseek, c: { type: 'openai' } } });
    expect(problemsOf(file).map((problem) => problem.split(': ')[2])).toEqual(['agents.a.description', 'agents.c.model']);
  });

  it('refuses the names of the server’s own agents and names that are no agent names', () => {
    const file = agentsFile({ agents: { demo: { type: 'remote', description: 'x' }, 'no spaces': { type: 'remote', description: 'x' } } });
    const problems = problemsOf(file);
    expect(problems[0]).toContain('agents.demo: "demo" is the name of an agent the server has already');
    expect(problems[1]).toContain('agents.no spaces: an agent name is 1 to 64 letters');
  });

  it('refuses a file that is not JSON, has no agents object, or has other fields', () => {
    expect(problemsOf(agentsFile('{ "agents": '))[0]).toMatch(/is not JSON/);
    expect(problemsOf(agentsFile({ agents: [] }))[0]).toMatch(/: agents: must be an object/);
    expect(problemsOf(agentsFile({ agents: {}, default: 'x' }))[0]).toMatch(/unknown field "default": the file has only "agents"/);
    expect(problemsOf(join(folder, 'missing.json'))[0]).toMatch(/missing\.json cannot be read/);
  });

  it('stops loadConfig with a ConfigError naming the variable, the file and the path', () => {
    const file = agentsFile({ agents: { deepseek: { ...deepseek, baseURL: 'nope' } } });
    let thrown: unknown;
    try {
      loadConfig({ INTERTHOUGHT_AGENTS_CONFIG: file });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ConfigError);
    expect((thrown as Error).message).toBe(`Invalid configuration:\n  INTERTHOUGHT_AGENTS_CONFIG: ${file}: agents.deepseek.baseURL: must be an http:// or https:// URL, e.g. http://localhost:11434/v1`);
  });
});
