import { z } from 'zod';
import { AgentsEnvSchema, agentsConfigOf, type AgentsConfig } from './agents-config.js';
import { AgentWorkersEnvSchema, agentWorkersConfigOf, type AgentWorkersConfig } from './agent-workers-config.js';
import { AgentsCatalogEnvSchema, agentsCatalogOf, type AgentsCatalog } from './agents-catalog.js';
import { AuthEnvSchema, authConfigOf, type AuthConfig } from './auth-config.js';
import { ClusterEnvSchema, clusterConfigOf, type ClusterConfig } from './cluster-config.js';
import { DatabaseEnvSchema, databaseConfigOf, type DatabaseConfig } from './database-config.js';
import { parseEnv, type Env } from './env-values.js';
import { LimitsEnvSchema, limitsConfigOf, type LimitsConfig } from './limits-config.js';
import { McpEnvSchema, mcpConfigOf, type McpConfig } from './mcp-config.js';
import { ServerEnvSchema, serverConfigOf, type ServerConfig } from './server-config.js';

export { ConfigError, type ConfigProblem } from './config-error.js';
export { AgentsConfigError, type AgentsConfig } from './agents-config.js';
export type { AgentWorkersConfig } from './agent-workers-config.js';
export { AgentsCatalogError, type AgentsCatalog, type AgentEntry } from './agents-catalog.js';
export { AUTH_MODES, AuthConfigError, type AuthConfig, type AuthMode, type IdentityConfig, type JwtConfig, type ProxyConfig } from './auth-config.js';
export { ClusterConfigError, type ClusterConfig } from './cluster-config.js';
export { DatabaseConfigError, type DatabaseConfig } from './database-config.js';
export { LimitsConfigError, type LimitsConfig } from './limits-config.js';
export { McpConfigError, type McpConfig } from './mcp-config.js';
export { DEFAULT_DB, LOG_LEVELS, MEMORY_DB, ServerConfigError, type LogLevel, type ServerConfig } from './server-config.js';
export { REPO_ROOT, SERVER_VERSION } from './server-package.js';

/** The server's settings, read once from the environment by `loadConfig`: every concern's, side by side. */
export interface Config extends ServerConfig, LimitsConfig, AuthConfig, AgentsConfig, AgentWorkersConfig {
  /** Cluster mode (INTERTHOUGHT_REDIS_URL set): this process is one node of a cluster sharing Redis. Undefined: the embedded SQLite server. */
  cluster: ClusterConfig | undefined;
  /** Sessions in PostgreSQL (INTERTHOUGHT_DATABASE_URL set): instead of the SQLite file on one node; with Redis, the cluster's log. Undefined: SQLite, or Redis alone. */
  database: DatabaseConfig | undefined;
  /** Tools from MCP servers (INTERTHOUGHT_MCP_CONFIG names their file). Undefined: none. */
  mcp: McpConfig | undefined;
  /** The agents and models of the agents file (INTERTHOUGHT_AGENTS_CONFIG names it). Undefined: the built-in agents only. */
  agentsCatalog: AgentsCatalog | undefined;
}

/** Every concern's variables in one schema, so that one message names every bad variable at once. */
const EnvSchema = z.object({
  ...ServerEnvSchema.shape,
  ...LimitsEnvSchema.shape,
  ...AuthEnvSchema.shape,
  ...AgentsEnvSchema.shape,
  ...AgentWorkersEnvSchema.shape,
  ...ClusterEnvSchema.shape,
  ...DatabaseEnvSchema.shape,
  ...McpEnvSchema.shape,
  ...AgentsCatalogEnvSchema.shape,
});

/**
 * Read and validate the configuration. Throws a `ConfigError` naming every bad variable; once each
 * variable is good on its own, the checks of variables together follow (limits, then sign-in, then
 * the MCP servers file, then the agents file), each throwing its concern's error.
 */
export function loadConfig(env: Env = process.env): Config {
  const vars = parseEnv(EnvSchema, env);
  const database = databaseConfigOf(vars);
  return {
    ...serverConfigOf(vars),
    ...limitsConfigOf(vars),
    ...authConfigOf(vars, env),
    ...agentsConfigOf(vars),
    ...agentWorkersConfigOf(vars),
    cluster: clusterConfigOf(vars),
    database,
    mcp: mcpConfigOf(vars),
    agentsCatalog: agentsCatalogOf(vars),
  };
}
