import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentListing } from '@interthought/protocol';
import { catalogAgents } from '../../../src/agents/catalog/index.js';
import { NO_WORKER_REASON } from '../../../src/agents/remote/declared-remote-agent.js';
import type { AgentEntry, AgentsCatalog } from '../../../src/config/agents-catalog.js';
import { buildTestApp } from '../../support/server.js';
import { TestClient } from '../../support/ws-client.js';
import { FakeOpenAIServer } from '../openai/support/fake-openai-server.js';
import { answerTurn, content } from '../openai/support/wire.js';

function catalog(agents: Record<string, AgentEntry>): AgentsCatalog {
  return { file: '/etc/interthought/agents.json', agents: Object.entries(agents).map(([name, entry]) => ({ name, entry })) };
}

const fast = { retry: { baseDelayMs: 5 }, timeoutMs: 5_000 } as const;

describe('agents of the agents file', () => {
  let alpha: FakeOpenAIServer;
  let beta: FakeOpenAIServer;
  let app: FastifyInstance;
  let client: TestClient;

  beforeAll(async () => {
    alpha = await FakeOpenAIServer.start();
    beta = await FakeOpenAIServer.start('/api/v1');
    const agents = catalogAgents(
      catalog({
        alpha: { type: 'openai', description: 'Alpha models', baseURL: alpha.baseURL, apiKeyEnv: 'ALPHA_KEY', model: 'alpha-small', models: ['alpha-large'], ...fast },
        beta: { type: 'openai', description: 'Beta, calculator only', baseURL: beta.baseURL, model: 'beta-1', system: 'You are Beta.', tools: ['calc*'], ...fast },
        keyless: { type: 'openai', description: 'Missing its key', baseURL: 'https://api.example.com/v1', apiKeyEnv: 'KEYLESS_API_KEY', model: 'm' },
        builder: { type: 'remote', description: 'Builds on our workers' },
        copilot: { type: 'ag-ui', description: 'An AG-UI endpoint', url: 'https://agents.example.com/run' },
      }),
      { ALPHA_KEY: 'sk-alpha', OPENAI_API_KEY: 'sk-env' },
    );
    app = await buildTestApp({}, { agents });
    client = await TestClient.inject(app);
  });
  afterAll(async () => {
    await client.close();
    await app.close();
    await alpha.close();
    await beta.close();
  });

  it('lists every agent with its models, default model, availability and reason', async () => {
    const response = await app.inject('/api/agents');
    expect(response.statusCode).toBe(200);
    const listed = response.json() as AgentListing[];
    expect(listed.map((agent) => agent.name)).toEqual(['demo', 'openai', 'alpha', 'beta', 'keyless', 'builder', 'copilot']);
    const byName = new Map(listed.map((agent) => [agent.name, agent]));
    expect(byName.get('demo')).toEqual({ name: 'demo', description: expect.any(String), available: true, default: true });
    expect(byName.get('openai')).toEqual({ name: 'openai', description: expect.any(String), available: true, default: false, models: ['gpt-4o-mini'], defaultModel: 'gpt-4o-mini', anyModel: true });
    expect(byName.get('alpha')).toEqual({ name: 'alpha', description: 'Alpha models', available: true, default: false, models: ['alpha-small', 'alpha-large'], defaultModel: 'alpha-small' });
    expect(byName.get('beta')).toMatchObject({ available: true, models: ['beta-1'], defaultModel: 'beta-1' });
    expect(byName.get('keyless')).toMatchObject({ available: false, reason: 'Set KEYLESS_API_KEY to the API key of api.example.com (agents.keyless.apiKeyEnv names it).', models: ['m'] });
    expect(byName.get('builder')).toEqual({ name: 'builder', description: 'Builds on our workers', available: false, reason: NO_WORKER_REASON, default: false });
    expect(byName.get('copilot')).toEqual({ name: 'copilot', description: 'An AG-UI endpoint', available: true, default: false });
  });

  it('sends each session to its own endpoint with the model it picked, the key from the variable the entry names', async () => {
    alpha.reply(answerTurn(...content('Alpha says hi.')));
    beta.reply(answerTurn(...content('Beta says hi.')));

    const first = client.send({ type: 'session.create', task: 'Hello alpha', agent: 'alpha', options: { model: 'alpha-large' } });
    const second = client.send({ type: 'session.create', task: 'Hello beta', agent: 'beta' });
    const [alphaCreated, betaCreated] = await Promise.all([client.answerTo(first), client.answerTo(second)]);
    if (alphaCreated.type !== 'session.created' || betaCreated.type !== 'session.created') throw new Error('a session was refused');
    expect(alphaCreated.session).toMatchObject({ agent: 'alpha', model: 'alpha-large' });
    expect(betaCreated.session).toMatchObject({ agent: 'beta', model: 'beta-1' });
    await client.untilFinished(alphaCreated.session.sessionId);
    await client.untilFinished(betaCreated.session.sessionId);

    expect(alpha.requests.map((request) => request.body.model)).toEqual(['alpha-large']);
    expect(beta.requests.map((request) => request.body.model)).toEqual(['beta-1']);
    expect(alpha.requests[0]?.headers.authorization).toBe('Bearer sk-alpha');
    expect(beta.requests[0]?.path).toBe('/api/v1/chat/completions');
    // Beta's own prompt, and only the tools its globs select, with ask_user, which every agent is offered (PROTOCOL.md §25.1).
    expect(beta.requests[0]?.body.messages[0]).toEqual({ role: 'system', content: 'You are Beta.' });
    expect(beta.requests[0]?.body.tools.map((tool: { function: { name: string } }) => tool.function.name)).toEqual(['calculator', 'ask_user']);
    expect(alpha.requests[0]?.body.tools.length).toBeGreaterThan(1);
  });

  it('records the model with the session: the snapshot and the Markdown export name it', async () => {
    alpha.reply(answerTurn(...content('Done.')));
    const sessionId = await client.createSession('Which model?', { agent: 'alpha' });
    await client.untilFinished(sessionId);

    const snapshot = (await app.inject(`/api/sessions/${sessionId}`)).json() as { session: { model?: string } };
    expect(snapshot.session.model).toBe('alpha-small');
    const markdown = (await app.inject(`/api/sessions/${sessionId}/export?format=md`)).body;
    expect(markdown).toContain(`_Session ${sessionId} · agent alpha · model alpha-small · started `);
  });

  it('refuses a model the agent does not offer, naming those it does', async () => {
    const id = client.send({ type: 'session.create', task: 'Hello', agent: 'alpha', options: { model: 'gpt-5' } });
    const answer = await client.answerTo(id);
    expect(answer).toMatchObject({
      type: 'error',
      code: 'INVALID_OPTIONS',
      message: 'Agent "alpha" does not offer the model "gpt-5"; it offers "alpha-small", "alpha-large". Pick one of them, or name none for "alpha-small".',
      details: [{ path: ['options', 'model'], message: 'Expected one of "alpha-small", "alpha-large"' }],
    });
    expect(alpha.requests.some((request) => request.body.model === 'gpt-5')).toBe(false);
  });

  it('refuses sessions of an agent whose key variable is unset, and of a remote agent no worker serves', async () => {
    for (const [agent, reason] of [
      ['keyless', 'Set KEYLESS_API_KEY'],
      ['builder', NO_WORKER_REASON],
    ] as const) {
      const answer = await client.answerTo(client.send({ type: 'session.create', task: 'Hello', agent }));
      expect(answer).toMatchObject({ type: 'error', code: 'AGENT_UNAVAILABLE' });
      expect((answer as { message: string }).message).toContain(reason);
    }
  });

  it('keeps the environment’s openai agent, which takes any model a session names', async () => {
    const answer = await client.answerTo(client.send({ type: 'session.create', task: 'Hello', agent: 'openai', options: { model: 'qwen3:14b' } }));
    expect(answer).toMatchObject({ type: 'session.created', session: { agent: 'openai', model: 'qwen3:14b' } });
    const sessionId = (answer as { session: { sessionId: string } }).session.sessionId;
    client.send({ type: 'session.cancel', sessionId });
    await client.untilFinished(sessionId);
  });
});

describe('the agents file beside the OPENAI_* variables', () => {
  it('lets an entry named openai take the place of the environment’s', () => {
    const agents = catalogAgents(catalog({ openai: { type: 'openai', baseURL: 'http://localhost:11434/v1', model: 'llama3.2' } }), { OPENAI_API_KEY: 'sk-env' });
    const listed = agents.list();
    expect(listed.map((agent) => agent.name)).toEqual(['demo', 'openai']);
    expect(listed[1]).toMatchObject({ models: ['llama3.2'], defaultModel: 'llama3.2' });
    expect(listed[1]?.anyModel).toBeUndefined();
  });

  it('runs a remote agent’s session into a failure that says no worker is connected', async () => {
    const agent = catalogAgents(catalog({ builder: { type: 'remote', description: 'x' } }), {}).get('builder');
    await expect(agent?.run({} as never)).rejects.toThrow(NO_WORKER_REASON);
  });
});
