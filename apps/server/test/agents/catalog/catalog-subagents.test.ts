import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentListing } from '@interthought/protocol';
import { catalogAgents } from '../../../src/agents/catalog/index.js';
import { readAgentsCatalog } from '../../../src/config/agents-catalog.js';
import { agentsFiles, catalogProblems as problemsOf } from '../../support/agents-file.js';
import { buildTestApp } from '../../support/server.js';
import { TestClient } from '../../support/ws-client.js';
import { FakeOpenAIServer } from '../openai/support/fake-openai-server.js';
import { answerTurn, content, toolCall, toolTurn } from '../openai/support/wire.js';

// `subagents` of an `openai` entry (PROTOCOL.md §24.8): checked in the agents file with the path
// and the reason, registered as agents on the entry's endpoint, and listed by GET /api/agents.

const agentsFile = agentsFiles('interthought-subagents-');

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

describe('an openai agent delegating on the real session core', () => {
  let fake: FakeOpenAIServer;
  let app: FastifyInstance;
  let client: TestClient;

  beforeAll(async () => {
    fake = await FakeOpenAIServer.start();
    const entry = { type: 'openai', baseURL: fake.baseURL, model: 'planner-model', system: 'You plan.', tools: ['calculator'], retry: { baseDelayMs: 5 }, timeoutMs: 5_000 };
    const catalog = readAgentsCatalog(agentsFile({ agents: { planner: { ...entry, subagents: [{ name: 'math', system: 'You compute.', model: 'math-model' }, { name: 'percent', system: 'You do percentages.', model: 'math-model' }] } } }));
    app = await buildTestApp({}, { agents: catalogAgents(catalog, {}) });
    client = await TestClient.inject(app);
  });
  afterAll(async () => {
    await client.close();
    await app.close();
    await fake.close();
  });

  it('runs a response’s two delegate calls as parallel sub-agents, each in its scope, and answers with their results', async () => {
    fake.reply(
      toolTurn(...toolCall(0, 'call_a', 'delegate', '{"task":"What is 17 * 23 + 4?","agent":"math"}'), ...toolCall(1, 'call_b', 'delegate', '{"task":"What is 15% of 240?","agent":"percent"}')),
      // The two sub-agents ask at the same time: each takes one of these, whichever comes first.
      answerTurn(...content('Part done.')),
      answerTurn(...content('Part done.')),
      answerTurn(...content('395, and 36.')),
    );
    const sessionId = await client.createSession('What is 17 * 23 + 4? Also, what is 15% of 240?', { agent: 'planner' });
    await client.untilFinished(sessionId);
    const snapshot = (await app.sessions.snapshot(sessionId))!;
    expect(snapshot.session.status).toBe('completed');
    const chain = snapshot.chain.map((id) => snapshot.steps.find((step) => step.stepId === id)!);
    expect(chain.map((step) => `${step.kind}${step.tool === undefined ? '' : `:${step.tool}`}`)).toEqual(['tool_call:delegate', 'tool_call:delegate', 'observation:delegate', 'observation:delegate', 'final_answer']);
    expect(chain[4]!.content).toBe('395, and 36.');
    expect(snapshot.subagents).toEqual([
      expect.objectContaining({ scope: chain[0]!.stepId, agent: 'math', name: 'math', task: 'What is 17 * 23 + 4?', status: 'completed', depth: 1 }),
      expect.objectContaining({ scope: chain[1]!.stepId, agent: 'percent', task: 'What is 15% of 240?', status: 'completed', depth: 1 }),
    ]);
    for (const info of snapshot.subagents ?? []) {
      const scoped = info.chain.map((id) => snapshot.steps.find((step) => step.stepId === id)!);
      expect(scoped.map((step) => [step.kind, step.content, step.scope])).toEqual([['final_answer', 'Part done.', info.scope]]);
    }
    expect(chain[2]!.result).toMatchObject({ subagent: chain[0]!.stepId, status: 'completed' });
    // The sub-agents asked with their own prompts and models, the parent was offered delegate (and ask_user, as every agent is).
    const subRequests = fake.requests.slice(1, 3).map((request) => request.body);
    expect(subRequests.map((body) => body.model)).toEqual(['math-model', 'math-model']);
    expect(new Set(subRequests.map((body) => body.messages[0].content))).toEqual(new Set(['You compute.', 'You do percentages.']));
    expect(fake.requests[0]!.body.tools.map((tool: { function: { name: string } }) => tool.function.name)).toEqual(['calculator', 'ask_user', 'delegate']);
    expect(fake.requests[3]!.body.messages.filter((message: { role: string }) => message.role === 'tool').map((message: { content: string }) => message.content)).toEqual(['Part done.', 'Part done.']);
  });
});
