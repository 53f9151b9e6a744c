import { createHash } from 'node:crypto';

/** OpenAI function names (and approval policies' tool names) allow at most 64 of these characters. */
export const TOOL_NAME_MAX = 64;
const HASH_LENGTH = 8;

function sanitise(part: string): string {
  return part.replace(/[^A-Za-z0-9_-]/g, '_');
}

/** A short, stable tag of the original names, so two names that sanitise or cut alike stay apart. */
function tagOf(server: string, tool: string): string {
  return createHash('sha256').update(`${server}\u0000${tool}`).digest('hex').slice(0, HASH_LENGTH);
}

/**
 * The registry name of `tool` of MCP server `server`: `mcp__<server>__<tool>`, with every character
 * a function name does not allow replaced by `_`. A longer name is cut and ends in a tag of the
 * original names; so does a name another tool already has (`taken`).
 */
export function mcpToolName(server: string, tool: string, taken: (name: string) => boolean = () => false): string {
  const plain = `mcp__${sanitise(server)}__${sanitise(tool)}`;
  if (plain.length <= TOOL_NAME_MAX && !taken(plain)) return plain;
  const tag = `_${tagOf(server, tool)}`;
  return `${plain.slice(0, TOOL_NAME_MAX - tag.length)}${tag}`;
}
