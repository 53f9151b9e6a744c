import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/index.js';
import { AgentsConfigError, readAgentsConfig } from '../../src/config/agents-config.js';
import { AgentsCatalogError, readAgentsCatalogConfig } from '../../src/config/agents-catalog.js';
import { AuthConfigError, readAuthConfig } from '../../src/config/auth-config.js';
import { ClusterConfigError, readClusterConfig } from '../../src/config/cluster-config.js';
import type { ConfigProblem } from '../../src/config/config-error.js';
import { LimitsConfigError, readLimitsConfig } from '../../src/config/limits-config.js';
import { McpConfigError, readMcpConfig } from '../../src/config/mcp-config.js';
import { readServerConfig, ServerConfigError } from '../../src/config/server-config.js';

type Env = Record<string, string>;

/** The error `read` throws for `env` (fails the test if it accepts it). */
function thrownBy(read: (env: Env) => unknown, env: Env): ConfigError {
  try {
    read(env);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

const CONCERNS: { concern: string; read: (env: Env) => unknown; error: abstract new (problems: ConfigProblem[]) => ConfigError; env: Env; variable: string }[] = [
  { concern: 'server', read: readServerConfig, error: ServerConfigError, env: { PORT: 'eighty' }, variable: 'PORT' },
  { concern: 'limits', read: readLimitsConfig, error: LimitsConfigError, env: { INTERTHOUGHT_MAX_FRAME_BYTES: '10' }, variable: 'INTERTHOUGHT_MAX_FRAME_BYTES' },
  { concern: 'limits together', read: readLimitsConfig, error: LimitsConfigError, env: { INTERTHOUGHT_HARD_BUFFER_BYTES: '4096', INTERTHOUGHT_SOFT_BUFFER_BYTES: '8192' }, variable: 'INTERTHOUGHT_HARD_BUFFER_BYTES' },
  { concern: 'auth', read: readAuthConfig, error: AuthConfigError, env: { INTERTHOUGHT_AUTH: 'oauth' }, variable: 'INTERTHOUGHT_AUTH' },
  { concern: 'auth together', read: readAuthConfig, error: AuthConfigError, env: { INTERTHOUGHT_AUTH: 'proxy' }, variable: 'INTERTHOUGHT_TRUSTED_PROXIES' },
  { concern: 'agents', read: readAgentsConfig, error: AgentsConfigError, env: { INTERTHOUGHT_MAX_TOKENS_PER_SESSION: '0' }, variable: 'INTERTHOUGHT_MAX_TOKENS_PER_SESSION' },
  { concern: 'cluster', read: readClusterConfig, error: ClusterConfigError, env: { INTERTHOUGHT_REDIS_URL: 'cache:6379' }, variable: 'INTERTHOUGHT_REDIS_URL' },
  { concern: 'MCP', read: readMcpConfig, error: McpConfigError, env: { INTERTHOUGHT_MCP_TIMEOUT_MS: '10' }, variable: 'INTERTHOUGHT_MCP_TIMEOUT_MS' },
  { concern: 'agents file', read: readAgentsCatalogConfig, error: AgentsCatalogError, env: { INTERTHOUGHT_AGENTS_CONFIG: '/nonexistent/interthought-agents.json' }, variable: 'INTERTHOUGHT_AGENTS_CONFIG' },
  { concern: 'MCP file', read: readMcpConfig, error: McpConfigError, env: { INTERTHOUGHT_MCP_CONFIG: '/nonexistent/interthought-mcp.json' }, variable: 'INTERTHOUGHT_MCP_CONFIG' },
];

describe('each concern read alone', () => {
  for (const { concern, read, error, env, variable } of CONCERNS) {
    it(`throws the ${concern} error, naming ${variable} and what is wrong`, () => {
      const thrown = thrownBy(read, env);
      expect(thrown).toBeInstanceOf(error);
      expect(thrown.problems[0]).toMatchObject({ variable, problem: expect.any(String) });
      expect(thrown.message).toContain(`  ${variable}: ${thrown.problems[0]?.problem}`);
    });
  }

  it('reads what loadConfig reads for the same environment', () => {
    const env = { PORT: '8080', INTERTHOUGHT_RATE_BURST: '7', INTERTHOUGHT_TOKEN: 'open-sesame-42', INTERTHOUGHT_TOKEN_DELAY_MS: '3' };
    expect(loadConfig(env)).toMatchObject({ ...readServerConfig(env), ...readLimitsConfig(env), ...readAuthConfig(env), ...readAgentsConfig(env) });
  });
});

describe('loadConfig across concerns', () => {
  it('names the bad variables of every concern in one ConfigError', () => {
    const thrown = thrownBy(loadConfig, { PORT: 'x', INTERTHOUGHT_RATE_BURST: '0', INTERTHOUGHT_AUTH: 'oauth', INTERTHOUGHT_SWEEP_MS: '1' });
    expect(thrown.problems.map((p) => p.variable)).toEqual(['PORT', 'INTERTHOUGHT_RATE_BURST', 'INTERTHOUGHT_AUTH', 'INTERTHOUGHT_SWEEP_MS']);
  });

  it('checks variables together only once each is good on its own', () => {
    const thrown = thrownBy(loadConfig, { PORT: 'x', INTERTHOUGHT_AUTH: 'token' });
    expect(thrown.problems).toEqual([{ variable: 'PORT', problem: 'must be a whole number from 0 to 65535, got "x"' }]);
    expect(thrownBy(loadConfig, { INTERTHOUGHT_AUTH: 'token' })).toBeInstanceOf(AuthConfigError);
  });
});
