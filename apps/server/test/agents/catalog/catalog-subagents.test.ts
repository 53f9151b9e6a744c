import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentListing } from '@interthought/protocol';
import { catalogAgents } from '../../../src/agents/catalog/index.js';
import { AgentsCatalogError, readAgentsCatalog } from '../../../src/config/agents-catalog.js';
import { buildTestApp } from '../../support/server.js';

// `subagents` of an `openai` entry (PROTOCOL.md §24.8): checked in the agents file with the path
// and the reason, registered as agents on the entry's endpoint, and listed by GET /api/agents.

const folder = mkdtempSync(join(tmpdir(), 'interthought-subagents-'));
let files = 0;

function agentsFile(content: unknown): string {
  const file = join(folder, `agents-${++files}.json`);
  writeFileSync(file, JSON.stringify(content));
  return file;
}

function problemsOf(file: string): string[] {
  try {
    readAgentsCatalog(file);
  } catch (error) {
    if (error instanceof AgentsCatalogError) return error.problems.map((problem) => problem.problem.replace(`${file}: `, ''));
    throw error;
  }
  throw new Error('expected an AgentsCatalogError');
}

const local = { type: 'openai', baseURL: 'http://localhost:11434/v1', model: 'qwen3:14b', system: 'You plan.', tools: ['calculator'] };

describe('subagents in the agents file', () => {
  it('reads an openai entry’s sub-agents', () => {
    const catalog = readAgentsCatalog(
      agentsFile({ agents: { planner: { ...local, subagents: [{ name: 'math', system: 'You compute.', tools: ['calculator'], model: 'qwen3:4b' }, { name: 'writer' }] } } }),
    );
    expect(catalog.agents[0]!.entry).toMatchObject({ subagents: [{ name: 'math', system: 'You compute.', tools: ['calculator'], model: 'qwen3:4b' }, { name: 'writer' }] });
  });

  it('names each mistake with its path: a bad shape, a name taken, a name given twice', () => {
    expect(problemsOf(agentsFile({ agents: { planner: { ...local, subagents: [] } } }))).toEqual(['agents.planner.subagents: must list at least one sub-agent']);
    expect(problemsOf(agentsFile({ agents: { planner: { ...local, subagents: ['math'] } } }))).toEqual(['agents.planner.subagents.0: must be an object: { "name", "system"?, "tools"?, "model"? }']);
    expect(problemsOf(agentsFile({ agents: { planner: { ...local, subagents: [{ name: 'math', prompt: 'x' }] } } }))).toEqual(['agents.planner.subagents.0: unknown field "prompt" for a "openai" agent']);
    expect(problemsOf(agentsFile({ agents: { planner: { ...local, subagents: [{ name: 'two words' }] } } }))).toEqual([
      'agents.planner.subagents.0.name: an agent name is 1 to 64 letters, digits, ".", "_" or "-", starting with a letter or digit',
    ]);
    expect(
      problemsOf(
        agentsFile({
          agents: {
            planner: { ...local, subagents: [{ name: 'planner' }, { name: 'other' }, { name: 'demo' }, { name: 'math' }] },
            other: { ...local },
            second: { ...local, subagents: [{ name: 'math' }] },
          },
        }),
      ),
    ).toEqual([
      'agents.planner.subagents.0.name: "planner" is the agent itself, which may delegate to itself without listing it',
      'agents.planner.subagents.1.name: "other" is the name of an agent of this file; a sub-agent\'s name is its own',
      'agents.planner.subagents.2.name: "demo" is the name of an agent the server has already; pick another',
      'agents.second.subagents.0.name: "math" is already a sub-agent of agents.planner; each sub-agent has a name of its own',
    ]);
  });
});

describe('subagents as agents of the server', () => {
  let app: FastifyInstance;

  beforeAll(async () => {
    const catalog = readAgentsCatalog(agentsFile({ agents: { planner: { ...local, description: 'Plans and delegates', subagents: [{ name: 'math', system: 'You compute.', model: 'qwen3:4b' }, { name: 'writer', tools: [] }] } } }));
    app = await buildTestApp({}, { agents: catalogAgents(catalog, {}) });
  });
  afterAll(async () => {
    await app.close();
  });

  it('GET /api/agents names each agent’s sub-agents, which are agents on its endpoint', async () => {
    const listed = (await app.inject('/api/agents')).json() as AgentListing[];
    const byName = new Map(listed.map((agent) => [agent.name, agent]));
    expect(byName.get('planner')).toMatchObject({ description: 'Plans and delegates', available: true, subagents: ['math', 'writer'] });
    expect(byName.get('math')).toMatchObject({ description: 'A sub-agent of planner (You compute.).', available: true, models: ['qwen3:4b'] });
    expect(byName.get('writer')).toMatchObject({ description: 'A sub-agent of planner.', available: true, models: ['qwen3:14b'] });
    expect(byName.get('math')).not.toHaveProperty('subagents');
    expect(byName.get('demo')).not.toHaveProperty('subagents');
  });
});
