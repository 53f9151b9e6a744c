import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { applyEvents, createSessionState, type SessionEvent, type SessionInfo, type SessionState } from '@interthought/protocol';
import { catalogAgents } from '../../src/agents/catalog/index.js';
import type { AgentEntry, AgentsCatalog } from '../../src/config/agents-catalog.js';
import { startServer, type RunningServer } from '../support/server.js';
import { TestClient } from '../support/ws-client.js';
import { FakeOpenAIServer } from '../agents/openai/support/fake-openai-server.js';
import { answerTurn, content } from '../agents/openai/support/wire.js';

// Replay from a step on another agent or model (PROTOCOL.md §26.5), over a real WebSocket: a
// demo session is forked onto an OpenAI-compatible agent whose endpoint is a fake speaking the real wire.

function catalog(agents: Record<string, AgentEntry>): AgentsCatalog {
  return { file: '/etc/interthought/agents.json', agents: Object.entries(agents).map(([name, entry]) => ({ name, entry })) };
}

const fold = (events: readonly SessionEvent[]): SessionState => applyEvents(createSessionState(), events);
const kinds = (state: SessionState): string[] => state.chain.map((id) => state.steps.get(id)!.kind);
const stepAt = (state: SessionState, kind: string): string => state.chain.find((id) => state.steps.get(id)!.kind === kind)!;

describe('session.fork with agent, options and run (replay)', () => {
  let alpha: FakeOpenAIServer;
  let server: RunningServer;
  let client: TestClient;
  let source: SessionState;
  let sourceId: string;

  beforeAll(async () => {
    alpha = await FakeOpenAIServer.start();
    const agents = catalogAgents(
      catalog({
        alpha: { type: 'openai', description: 'Alpha models', baseURL: alpha.baseURL, apiKeyEnv: 'ALPHA_KEY', model: 'alpha-small', models: ['alpha-large'], retry: { baseDelayMs: 5 }, timeoutMs: 5_000 },
        keyless: { type: 'openai', description: 'Missing its key', baseURL: 'https://api.example.com/v1', apiKeyEnv: 'KEYLESS_API_KEY', model: 'm' },
      }),
      { ALPHA_KEY: 'sk-alpha' },
    );
    server = await startServer({ maxSessionsPerConnection: 100 }, { agents });
    client = await TestClient.connect(server.wsUrl);
    await client.waitForType('hello');
    sourceId = await client.createSession('What is 2 + 3?', { options: { tokenDelayMs: 0 } });
    source = fold(await client.untilFinished(sourceId));
  });
  afterEach(() => {
    alpha.requests.length = 0;
  });
  afterAll(async () => {
    await client.close();
    await server.close();
    await alpha.close();
  });

  async function fork(frame: Record<string, unknown>): Promise<SessionInfo> {
    const answer = await client.answerTo(client.send({ type: 'session.fork', sessionId: sourceId, ...frame }));
    if (answer.type !== 'session.created') throw new Error(`session.fork was answered with ${JSON.stringify(answer)}`);
    return answer.session;
  }

  it('runs the copied chain at once on the named agent and model: the request names that model and carries the chain', async () => {
    expect(kinds(source)).toEqual(expect.arrayContaining(['tool_call', 'observation', 'final_answer']));
    const observation = stepAt(source, 'observation');
    alpha.reply(answerTurn(...content('Alpha: the sum is 5.')));

    const created = await fork({ stepId: observation, agent: 'alpha', options: { model: 'alpha-large' }, run: true });
    expect(created).toMatchObject({ agent: 'alpha', model: 'alpha-large', status: 'running', forkedFrom: { sessionId: sourceId, stepId: observation } });
    const replay = fold(await client.untilFinished(created.sessionId));

    expect(replay.session.status).toBe('completed');
    const copied = replay.chain.filter((id) => replay.steps.get(id)!.copiedFrom !== undefined);
    expect(copied.map((id) => replay.steps.get(id)!.copiedFrom!.stepId)).toEqual(source.chain.slice(0, source.chain.indexOf(observation) + 1));
    expect(replay.steps.get(replay.chain.at(-1)!)).toMatchObject({ kind: 'final_answer', content: 'Alpha: the sum is 5.' });

    expect(alpha.requests).toHaveLength(1);
    const body = alpha.requests[0]!.body;
    expect(body.model).toBe('alpha-large');
    expect(body.messages[body.messages.length - 1]).toMatchObject({ role: 'tool', content: source.steps.get(observation)!.content });
    expect(body.messages.some((message: { role: string; tool_calls?: unknown[] }) => message.role === 'assistant' && (message.tool_calls?.length ?? 0) > 0)).toBe(true);
    // The source is untouched.
    expect(client.events(sourceId).at(-1)).toMatchObject({ type: 'session.status', status: 'completed' });
  });

  it('another agent without options runs on its own default model', async () => {
    alpha.reply(answerTurn(...content('Alpha small.')));
    const created = await fork({ stepId: stepAt(source, 'observation'), agent: 'alpha', run: true });
    expect(created).toMatchObject({ agent: 'alpha', model: 'alpha-small' });
    await client.untilFinished(created.sessionId);
    expect(alpha.requests[0]!.body.model).toBe('alpha-small');
  });

  it('a replay from the final answer asks the new agent for its own answer: the copy stops before it', async () => {
    const answer = stepAt(source, 'final_answer');
    alpha.reply(answerTurn(...content('Alpha answers afresh: 5.')));
    const created = await fork({ stepId: answer, agent: 'alpha', run: true });
    expect(created.forkedFrom).toMatchObject({ stepId: answer, index: source.steps.get(answer)!.index });
    const replay = fold(await client.untilFinished(created.sessionId));

    const copiedFrom = replay.chain.flatMap((id) => replay.steps.get(id)!.copiedFrom?.stepId ?? []);
    expect(copiedFrom).toEqual(source.chain.slice(0, source.chain.indexOf(answer)));
    expect(replay.steps.get(replay.chain.at(-1)!)).toMatchObject({ kind: 'final_answer', content: 'Alpha answers afresh: 5.' });
    const sent = JSON.stringify(alpha.requests[0]!.body.messages);
    expect(sent).not.toContain(source.steps.get(answer)!.content);
  });

  it('a replay from a tool call runs the call first when the policy allows it, and waits for approval when it asks', async () => {
    const call = stepAt(source, 'tool_call');
    alpha.reply(answerTurn(...content('After the tool: 5.')));
    const allowed = await fork({ stepId: call, agent: 'alpha', options: { approve: 'none' }, run: true });
    const ran = fold(await client.untilFinished(allowed.sessionId));
    const afterCall = ran.chain.slice(ran.chain.findIndex((id) => ran.steps.get(id)!.copiedFrom?.stepId === call) + 1);
    expect(afterCall.map((id) => ran.steps.get(id)!.kind)).toEqual(['observation', 'final_answer']);
    expect(ran.steps.get(afterCall[0]!)!.content).toBe(source.steps.get(stepAt(source, 'observation'))!.content);

    const asking = await fork({ stepId: call, agent: 'alpha', options: { approve: 'all' }, run: true });
    const requested = await client.waitForType('approval.requested', (frame) => frame.sessionId === asking.sessionId);
    expect(requested.tool).toBe(source.steps.get(call)!.tool);
    await client.waitForType('session.status', (frame) => frame.sessionId === asking.sessionId && frame.status === 'waiting');
    expect(alpha.requests).toHaveLength(1);
    await client.answerTo(client.send({ type: 'session.cancel', sessionId: asking.sessionId }));
  });

  it('a replay from a user message answers that message', async () => {
    const lastSeq = client.events(sourceId).at(-1)!.seq;
    const followUp = await client.answerTo(client.send({ type: 'session.message', sessionId: sourceId, text: 'And 2 + 4?' }));
    expect(followUp.type).toBe('message.accepted');
    const grown = fold(await client.waitFor((frame) => frame.type === 'session.status' && frame.sessionId === sourceId && frame.status === 'completed' && frame.seq > lastSeq).then(() => client.events(sourceId)));
    const message = grown.chain.find((id) => grown.steps.get(id)!.kind === 'user_message')!;
    alpha.reply(answerTurn(...content('Alpha: 6.')));
    const created = await fork({ stepId: message, agent: 'alpha', run: true });
    await client.untilFinished(created.sessionId);
    const messages = alpha.requests[0]!.body.messages as Array<{ role: string; content: string }>;
    expect(messages.at(-1)).toEqual({ role: 'user', content: 'And 2 + 4?' });
  });

  it('refuses an unknown agent, an unavailable one and a model the agent does not offer, creating nothing', async () => {
    const stepId = stepAt(source, 'observation');
    const refusals = [
      [{ agent: 'nobody', run: true }, 'AGENT_NOT_FOUND'],
      [{ agent: 'keyless', run: true }, 'AGENT_UNAVAILABLE'],
      [{ agent: 'alpha', options: { model: 'gamma-9' }, run: true }, 'INVALID_OPTIONS'],
      [{ agent: 'alpha', options: { model: 'gamma-9' } }, 'INVALID_OPTIONS'],
      [{ agent: 'alpha', options: { tokenDelayMs: -1 }, run: true }, 'BAD_FRAME'],
    ] as const;
    const before = (await (await fetch(`${server.baseUrl}/api/sessions`)).json()) as { sessions: unknown[] };
    for (const [extra, code] of refusals) {
      const answer = await client.answerTo(client.send({ type: 'session.fork', sessionId: sourceId, stepId, ...extra }));
      expect(answer).toMatchObject({ type: 'error', code });
    }
    const after = (await (await fetch(`${server.baseUrl}/api/sessions`)).json()) as { sessions: unknown[] };
    expect(after.sessions).toHaveLength(before.sessions.length);
    expect(alpha.requests).toHaveLength(0);
  });

  it('without run, a fork waits idle on the source agent as before, even when it names another', async () => {
    const plain = await fork({ stepId: stepAt(source, 'observation') });
    expect(plain).toMatchObject({ agent: 'demo', status: 'idle' });
    const other = await fork({ stepId: stepAt(source, 'observation'), agent: 'alpha', options: { model: 'alpha-large' } });
    expect(other).toMatchObject({ agent: 'alpha', model: 'alpha-large', status: 'idle' });
    await client.waitForType('steps.copied', (frame) => frame.sessionId === other.sessionId);
    expect(client.events(other.sessionId).some((event) => event.type === 'step.started')).toBe(false);
    expect(alpha.requests).toHaveLength(0);
  });
});

describe('session.fork run: true under the limits of session.create', () => {
  let server: RunningServer;
  afterAll(() => server.close());

  it('counts against the active-session quota', async () => {
    server = await startServer({ maxActiveSessionsPerAddress: 1, maxSessionsPerConnection: 100 });
    const client = await TestClient.connect(server.wsUrl);
    await client.waitForType('hello');
    const sourceId = await client.createSession('What is 2 + 3?', { options: { tokenDelayMs: 0 } });
    const source = fold(await client.untilFinished(sourceId));
    // A slow replay takes the only slot; a second one is refused until it ends.
    const first = await client.answerTo(client.send({ type: 'session.fork', sessionId: sourceId, stepId: source.chain[0]!, options: { tokenDelayMs: 50 }, run: true }));
    expect(first).toMatchObject({ type: 'session.created', session: { status: 'running' } });
    const second = await client.answerTo(client.send({ type: 'session.fork', sessionId: sourceId, stepId: source.chain[0]!, run: true }));
    expect(second).toMatchObject({ type: 'error', code: 'LIMIT_EXCEEDED' });
    // An idle fork starts nothing, so it is not refused.
    const idle = await client.answerTo(client.send({ type: 'session.fork', sessionId: sourceId, stepId: source.chain[0]! }));
    expect(idle).toMatchObject({ type: 'session.created', session: { status: 'idle' } });
    await client.close();
  });
});
