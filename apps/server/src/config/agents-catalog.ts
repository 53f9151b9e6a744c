import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { z } from 'zod';
import { LESSONS_LIMITS } from '@interthought/protocol';
import { AG_UI_LIMITS } from '../agents/ag-ui/config.js';
import { OPENAI_LIMITS } from '../agents/openai/config.js';
import { ConfigError } from './config-error.js';
import { parseEnv, type Env } from './env-values.js';
import { REPO_ROOT } from './server-package.js';

/*
 * The agents file INTERTHOUGHT_AGENTS_CONFIG names: `{ "agents": { "<name>": { "type": … } } }`.
 * Read and checked at start-up, so a mistake stops the server with the file, the path inside it
 * and the reason. Keys are never in the file: an entry names the variable that holds its key.
 */

/** Agent names the server gives itself. */
const RESERVED_NAMES = ['demo', 'firehose'];

const text = (what: string) => z.string({ error: `must be a string (${what})` }).trim().min(1, `must not be empty (${what})`);

const httpUrl = z
  .string({ error: 'must be an http:// or https:// URL' })
  .trim()
  .refine((value) => URL.canParse(value) && /^https?:$/.test(new URL(value).protocol), { error: 'must be an http:// or https:// URL, e.g. http://localhost:11434/v1' })
  .transform((value) => value.replace(/\/+$/, ''));

const envName = z.string({ error: 'must name an environment variable' }).regex(/^[A-Za-z_][A-Za-z0-9_]*$/, { error: 'must name an environment variable (letters, digits and _, not starting with a digit), e.g. DEEPSEEK_API_KEY' });

const modelName = z.string({ error: 'must be a model name' }).trim().min(1, 'must be a model name').max(200, 'must be at most 200 characters');

const whole = (limit: { min: number; max: number }) =>
  z.number({ error: `must be a whole number from ${limit.min} to ${limit.max}` }).int(`must be a whole number from ${limit.min} to ${limit.max}`).min(limit.min, `must be at least ${limit.min}`).max(limit.max, `must be at most ${limit.max}`);

const toolGlob = z.string({ error: 'must be a tool name or a glob' }).regex(/^[A-Za-z0-9_*-]{1,128}$/, { error: 'must be a tool name or a glob of one (letters, digits, _, - and *), e.g. "calculator" or "mcp__github__*"' });

/** Learning from earlier corrections (PROTOCOL.md §26.4): opt-in, and how many lessons a run gets at most. */
const LESSONS_FIELDS = {
  lessons: z.boolean({ error: 'must be true or false (whether the agent learns from earlier corrections)' }).optional(),
  lessonsMax: whole({ min: 1, max: LESSONS_LIMITS.maxCount }).optional(),
};

/** An agent's name: what `session.create` and a delegate call's `agent` name it by. */
const AGENT_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
const AGENT_NAME_RULE = 'an agent name is 1 to 64 letters, digits, ".", "_" or "-", starting with a letter or digit';

/** A sub-agent an `openai` agent may delegate to: an agent on the same endpoint with its own prompt, tools or model (PROTOCOL.md §24.8). */
const SubagentSchema = z.strictObject(
  {
    name: z.string({ error: `must be a string (${AGENT_NAME_RULE})` }).regex(AGENT_NAME, { error: AGENT_NAME_RULE }),
    system: text('the sub-agent\'s system prompt').max(20_000, 'must be at most 20000 characters').optional(),
    tools: z.array(toolGlob, { error: 'must be an array of tool names or globs' }).optional(),
    model: modelName.optional(),
  },
  { error: 'must be an object: { "name", "system"?, "tools"?, "model"? }' },
);

const OpenAIEntrySchema = z.strictObject({
  type: z.literal('openai'),
  description: text('one line for the agent picker').max(300, 'must be at most 300 characters').optional(),
  baseURL: httpUrl.optional(),
  apiKeyEnv: envName.optional(),
  model: modelName,
  models: z.array(modelName, { error: 'must be an array of model names' }).min(1, 'must list at least one model').optional(),
  system: text('the system prompt').max(20_000, 'must be at most 20000 characters').optional(),
  tools: z.array(toolGlob, { error: 'must be an array of tool names or globs' }).optional(),
  thoughts: z.enum(['think-tags', 'reasoning-content'], { error: 'must be "think-tags" or "reasoning-content"' }).optional(),
  maxIterations: whole(OPENAI_LIMITS.maxIterations).optional(),
  timeoutMs: whole(OPENAI_LIMITS.timeoutMs).optional(),
  retry: z
    .strictObject({
      attempts: whole(OPENAI_LIMITS.retryAttempts).optional(),
      baseDelayMs: whole(OPENAI_LIMITS.retryBaseDelayMs).optional(),
      maxDelayMs: whole(OPENAI_LIMITS.retryMaxDelayMs).optional(),
    }, { error: 'must be an object: { "attempts", "baseDelayMs", "maxDelayMs" }' })
    .optional(),
  organization: text('OpenAI organization id').optional(),
  project: text('OpenAI project id').optional(),
  ...LESSONS_FIELDS,
  subagents: z
    .array(SubagentSchema, { error: 'must be an array of sub-agents: [{ "name", "system"?, "tools"?, "model"? }]' })
    .min(1, 'must list at least one sub-agent')
    .max(16, 'must list at most 16 sub-agents')
    .optional(),
});

/** A header value, with `${NAME}` where an environment variable's value goes. */
const headerValue = z
  .string({ error: 'must be a string' })
  .refine((value) => [...value.matchAll(/\$\{([^}]*)\}/g)].every((match) => /^[A-Za-z_][A-Za-z0-9_]*$/.test(match[1] ?? '')), {
    error: 'may name environment variables only as ${NAME} (letters, digits and _)',
  });

const AgUiEntrySchema = z.strictObject({
  type: z.literal('ag-ui'),
  description: text('one line for the agent picker').max(300, 'must be at most 300 characters'),
  url: httpUrl,
  headers: z.record(z.string(), headerValue, { error: 'must be an object of strings' }).optional(),
  timeoutMs: whole(AG_UI_LIMITS.timeoutMs).optional(),
  retries: whole(AG_UI_LIMITS.retries).optional(),
  ...LESSONS_FIELDS,
});

const RemoteEntrySchema = z.strictObject({
  type: z.literal('remote'),
  description: text('one line for the agent picker').max(300, 'must be at most 300 characters'),
  ...LESSONS_FIELDS,
});

const ENTRY_SCHEMAS = { openai: OpenAIEntrySchema, 'ag-ui': AgUiEntrySchema, remote: RemoteEntrySchema } as const;

export type OpenAIEntry = z.output<typeof OpenAIEntrySchema>;
export type AgUiEntry = z.output<typeof AgUiEntrySchema>;
export type RemoteEntry = z.output<typeof RemoteEntrySchema>;
export type AgentEntry = OpenAIEntry | AgUiEntry | RemoteEntry;

/** The agents file, read: its absolute path and its entries by name, in the file's order. */
export interface AgentsCatalog {
  file: string;
  agents: ReadonlyArray<{ name: string; entry: AgentEntry }>;
}

/** A mistake in the agents file: each problem names the file, the path inside it and the reason. */
export class AgentsCatalogError extends ConfigError {
  override readonly name = 'AgentsCatalogError';
}

function problemAt(file: string, path: readonly PropertyKey[], reason: string): { variable: string; problem: string } {
  return { variable: 'INTERTHOUGHT_AGENTS_CONFIG', problem: `${file}: ${path.length === 0 ? '' : `${path.map(String).join('.')}: `}${reason}` };
}

function entryProblems(file: string, name: string, entry: unknown): Array<{ variable: string; problem: string }> | AgentEntry {
  const at = ['agents', name];
  if (!AGENT_NAME.test(name)) return [problemAt(file, at, AGENT_NAME_RULE)];
  if (RESERVED_NAMES.includes(name)) return [problemAt(file, at, `"${name}" is the name of an agent the server has already; pick another`)];
  if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
    return [problemAt(file, at, 'must be an object: { "type": "openai" | "ag-ui" | "remote", "description": … }')];
  }
  // A key in the file would end up in backups and repositories: refused, whatever else the entry says.
  if ('apiKey' in entry) {
    return [problemAt(file, [...at, 'apiKey'], 'keys are never read from this file: put the key in an environment variable and name that variable in "apiKeyEnv"')];
  }
  const type = (entry as { type?: unknown }).type;
  if (typeof type !== 'string' || !(type in ENTRY_SCHEMAS)) {
    return [problemAt(file, [...at, 'type'], `must be "openai", "ag-ui" or "remote", got ${JSON.stringify(type) ?? 'nothing'}`)];
  }
  const parsed = ENTRY_SCHEMAS[type as keyof typeof ENTRY_SCHEMAS].safeParse(entry);
  if (parsed.success && parsed.data.lessonsMax !== undefined && parsed.data.lessons !== true) {
    return [problemAt(file, [...at, 'lessonsMax'], 'counts lessons of an agent that learns from corrections: set "lessons": true too, or leave "lessonsMax" out')];
  }
  if (parsed.success) return parsed.data;
  return parsed.error.issues.map((issue) =>
    issue.code === 'unrecognized_keys'
      ? problemAt(file, [...at, ...issue.path], `unknown field${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((key) => `"${key}"`).join(', ')} for a "${type}" agent`)
      : problemAt(file, [...at, ...issue.path], issue.message),
  );
}

/** Read and check the agents file. Throws an `AgentsCatalogError` naming every problem, each with its path in the file. */
export function readAgentsCatalog(file: string): AgentsCatalog {
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    const why = error instanceof SyntaxError ? `is not JSON: ${error.message}` : `cannot be read: ${error instanceof Error ? error.message : String(error)}`;
    throw new AgentsCatalogError([{ variable: 'INTERTHOUGHT_AGENTS_CONFIG', problem: `${file} ${why}` }]);
  }
  const shape = 'must be an object { "agents": { "<name>": { "type": "openai" | "ag-ui" | "remote", … } } }';
  if (typeof json !== 'object' || json === null || Array.isArray(json)) throw new AgentsCatalogError([problemAt(file, [], shape)]);
  const unknown = Object.keys(json).filter((key) => key !== 'agents');
  if (unknown.length > 0) throw new AgentsCatalogError([problemAt(file, [], `unknown field ${unknown.map((key) => `"${key}"`).join(', ')}: the file has only "agents"`)]);
  const agents = (json as { agents?: unknown }).agents;
  if (typeof agents !== 'object' || agents === null || Array.isArray(agents)) throw new AgentsCatalogError([problemAt(file, ['agents'], shape.replace('must be an object { "agents": ', 'must be an object ').replace(/ }$/, ''))]);
  const problems: Array<{ variable: string; problem: string }> = [];
  const read: Array<{ name: string; entry: AgentEntry }> = [];
  for (const [name, entry] of Object.entries(agents)) {
    const checked = entryProblems(file, name, entry);
    if (Array.isArray(checked)) problems.push(...checked);
    else read.push({ name, entry: checked });
  }
  problems.push(...subagentNameProblems(file, read));
  if (problems.length > 0) throw new AgentsCatalogError(problems);
  return { file, agents: read };
}

/**
 * Sub-agents are agents of the server too (a delegate call names one), so each name is one agent's
 * only: not an entry's, not the server's own, not another sub-agent's.
 */
function subagentNameProblems(file: string, read: ReadonlyArray<{ name: string; entry: AgentEntry }>): Array<{ variable: string; problem: string }> {
  const problems: Array<{ variable: string; problem: string }> = [];
  const entries = new Set(read.map(({ name }) => name));
  const taken = new Map<string, string>();
  for (const { name, entry } of read) {
    if (entry.type !== 'openai') continue;
    (entry.subagents ?? []).forEach((subagent, index) => {
      const at = ['agents', name, 'subagents', index, 'name'];
      const earlier = taken.get(subagent.name);
      if (subagent.name === name) problems.push(problemAt(file, at, `"${name}" is the agent itself, which may delegate to itself without listing it`));
      else if (entries.has(subagent.name)) problems.push(problemAt(file, at, `"${subagent.name}" is the name of an agent of this file; a sub-agent's name is its own`));
      else if (RESERVED_NAMES.includes(subagent.name) || subagent.name === 'openai') problems.push(problemAt(file, at, `"${subagent.name}" is the name of an agent the server has already; pick another`));
      else if (earlier !== undefined) problems.push(problemAt(file, at, `"${subagent.name}" is already a sub-agent of ${earlier}; each sub-agent has a name of its own`));
      else taken.set(subagent.name, `agents.${name}`);
    });
  }
  return problems;
}

export const AgentsCatalogEnvSchema = z.object({
  INTERTHOUGHT_AGENTS_CONFIG: z.string().optional().transform((raw) => (raw?.trim() ? resolve(REPO_ROOT, raw.trim()) : undefined)),
});

export type AgentsCatalogEnv = z.infer<typeof AgentsCatalogEnvSchema>;

/** The agents file the variable names (a relative path is resolved from the repository root), read now; undefined without one. */
export function agentsCatalogOf(vars: AgentsCatalogEnv): AgentsCatalog | undefined {
  const file = vars.INTERTHOUGHT_AGENTS_CONFIG;
  return file === undefined ? undefined : readAgentsCatalog(file);
}

/** The agents file of `env` alone. Throws an `AgentsCatalogError` for a mistake in it. */
export function readAgentsCatalogConfig(env: Env): AgentsCatalog | undefined {
  return agentsCatalogOf(parseEnv(AgentsCatalogEnvSchema, env, AgentsCatalogError));
}
