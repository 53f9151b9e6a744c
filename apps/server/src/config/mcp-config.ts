import { resolve } from 'node:path';
import { z } from 'zod';
import { McpConfigFileError, readMcpConfigFile, type McpServerConfig } from '../tools/mcp/mcp-config-file.js';
import { ConfigError } from './config-error.js';
import { integer, parseEnv, type Env } from './env-values.js';
import { REPO_ROOT } from './server-package.js';

// What `tools/mcp` needs of the configuration lives here, apart from the other concerns, so that
// the MCP client imports nothing of the session core.
export { SERVER_VERSION } from './server-package.js';

export interface McpConfig {
  /** The file INTERTHOUGHT_MCP_CONFIG names, absolute (a relative one is resolved from the repository root). */
  file: string;
  servers: McpServerConfig[];
  /** How long one MCP request (start-up, listing, a tool call) may take (INTERTHOUGHT_MCP_TIMEOUT_MS, default 30 s). */
  timeoutMs: number;
}

/** A bad MCP timeout, or a mistake in the MCP servers file (each named with its server and field). */
export class McpConfigError extends ConfigError {
  override readonly name = 'McpConfigError';
}

export const McpEnvSchema = z.object({
  INTERTHOUGHT_MCP_CONFIG: z.string().optional().transform((raw) => (raw?.trim() ? resolve(REPO_ROOT, raw.trim()) : undefined)),
  INTERTHOUGHT_MCP_TIMEOUT_MS: integer(30_000, 50, 3_600_000),
});

export type McpEnv = z.infer<typeof McpEnvSchema>;

/** The MCP servers file, read and checked now so that a mistake in it stops start-up with its server and field named. */
export function mcpConfigOf(vars: McpEnv): McpConfig | undefined {
  const file = vars.INTERTHOUGHT_MCP_CONFIG;
  if (file === undefined) return undefined;
  try {
    return { file, servers: readMcpConfigFile(file), timeoutMs: vars.INTERTHOUGHT_MCP_TIMEOUT_MS };
  } catch (error) {
    if (!(error instanceof McpConfigFileError)) throw error;
    throw new McpConfigError(error.problems.map((problem) => ({ variable: 'INTERTHOUGHT_MCP_CONFIG', problem })));
  }
}

/** The MCP variables alone. Throws an `McpConfigError` naming every bad one. */
export function readMcpConfig(env: Env): McpConfig | undefined {
  return mcpConfigOf(parseEnv(McpEnvSchema, env, McpConfigError));
}
