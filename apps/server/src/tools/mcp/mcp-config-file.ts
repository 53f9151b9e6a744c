import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { z } from 'zod';

/** An MCP server started as a child process, spoken to over its stdin/stdout. */
export interface StdioServerConfig {
  transport: 'stdio';
  command: string;
  args: string[];
  /** Added to the few variables every server inherits (PATH, HOME…; the SDK's default environment). */
  env: Record<string, string>;
  /** Where the process starts; relative paths in the file are resolved from the file's folder. */
  cwd: string | undefined;
}

/** An MCP server reached at a Streamable HTTP endpoint. */
export interface HttpServerConfig {
  transport: 'http';
  url: string;
  /** Sent with every request (e.g. `Authorization`). */
  headers: Record<string, string>;
}

export type McpServerConfig = (StdioServerConfig | HttpServerConfig) & { name: string };

/** A problem of the file, for a `ConfigError` line. */
export class McpConfigFileError extends Error {
  override readonly name = 'McpConfigFileError';
  constructor(readonly problems: string[]) {
    super(problems.join('\n'));
  }
}

const stringMap = z.record(z.string(), z.string({ error: 'must be a string' }), { error: 'must be an object of strings' });

// `type` is optional: hosts such as VS Code and Claude Code write it, Claude Desktop does not.
const StdioEntrySchema = z.strictObject({
  type: z.literal('stdio', { error: 'must be "stdio" for a server with a command' }).optional(),
  command: z.string({ error: 'must be a string' }).trim().min(1, 'must name the program to start'),
  args: z.array(z.string({ error: 'must be a string' }), { error: 'must be an array of strings' }).optional(),
  env: stringMap.optional(),
  cwd: z.string({ error: 'must be a string' }).min(1, 'must not be empty').optional(),
});

const HttpEntrySchema = z.strictObject({
  type: z
    .enum(['http', 'streamable-http', 'streamableHttp'], {
      error: (issue) =>
        issue.input === 'sse'
          ? 'is "sse", the older HTTP transport, which Interthought does not speak: use the server\'s Streamable HTTP endpoint (often /mcp)'
          : 'must be "http" for a server with a url',
    })
    .optional(),
  url: z.url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' }),
  headers: stringMap.optional(),
});

const FileSchema = z.looseObject({
  mcpServers: z.record(z.string().min(1, 'a server needs a name'), z.unknown(), { error: 'must be an object: { "<name>": { "command": … } or { "url": … } }' }),
});

function where(path: PropertyKey[]): string {
  return path.length === 0 ? '' : `"${path.map(String).join('.')}" `;
}

/** One server's entry: a command (stdio) or a url (Streamable HTTP), never both. */
function parseEntry(name: string, entry: unknown, folder: string, problems: string[]): McpServerConfig | undefined {
  const prefix = `server "${name}"`;
  if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
    problems.push(`${prefix}: must be an object with "command" (a program to start, stdio) or "url" (a Streamable HTTP endpoint)`);
    return undefined;
  }
  const hasCommand = 'command' in entry;
  const hasUrl = 'url' in entry;
  if (hasCommand === hasUrl) {
    const which = hasCommand ? 'has both "command" and "url"' : 'has neither "command" nor "url"';
    problems.push(`${prefix}: ${which}: give "command" (a program to start, stdio) or "url" (a Streamable HTTP endpoint)`);
    return undefined;
  }
  const parsed = hasCommand ? StdioEntrySchema.safeParse(entry) : HttpEntrySchema.safeParse(entry);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const field = issue.code === 'unrecognized_keys' ? '' : where(issue.path);
      problems.push(`${prefix}: ${field}${issue.message}`);
    }
    return undefined;
  }
  const data = parsed.data;
  if ('command' in data) {
    return { name, transport: 'stdio', command: data.command, args: data.args ?? [], env: data.env ?? {}, cwd: data.cwd === undefined ? undefined : resolve(folder, data.cwd) };
  }
  return { name, transport: 'http', url: data.url, headers: data.headers ?? {} };
}

/**
 * Read the MCP servers file (the `{ "mcpServers": { … } }` shape other MCP hosts use). Throws an
 * `McpConfigFileError` whose problems name the server and the field.
 */
export function readMcpConfigFile(path: string): McpServerConfig[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new McpConfigFileError([`cannot read ${path}: ${error instanceof Error ? error.message : String(error)}`]);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new McpConfigFileError([`${path} is not JSON: ${error instanceof Error ? error.message : String(error)}`]);
  }
  const file = FileSchema.safeParse(json);
  if (!file.success) {
    throw new McpConfigFileError(file.error.issues.map((issue) => `${path}: ${where(issue.path)}${issue.message}`));
  }
  const problems: string[] = [];
  const servers: McpServerConfig[] = [];
  for (const [name, entry] of Object.entries(file.data.mcpServers)) {
    const server = parseEntry(name, entry, dirname(path), problems);
    if (server) servers.push(server);
  }
  if (problems.length > 0) throw new McpConfigFileError(problems.map((problem) => `${path}: ${problem}`));
  return servers;
}
