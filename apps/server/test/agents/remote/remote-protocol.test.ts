import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AgentServerMessageSchema } from '@interthought/protocol';
import { startServer, type RunningServer } from '../../support/server.js';
import { TestClient } from '../../support/ws-client.js';
import { TestWorker, WORKER_TOKEN } from './worker-client.js';

let server: RunningServer;
const open: Array<{ close(): void }> = [];

beforeEach(async () => {
  server = await startServer({ agentTokens: [WORKER_TOKEN, 'other-token'] });
});
afterEach(async () => {
  for (const socket of open.splice(0)) socket.close();
  await server.close();
});

async function viewer(): Promise<TestClient> {
  const client = await TestClient.connect(server.wsUrl);
  open.push(client.socket);
  return client;
}

async function worker(name: string): Promise<TestWorker> {
  const connected = await TestWorker.serving(server.baseUrl, name);
  open.push(connected);
  return connected;
}

describe('/ws/agents: the protocol frame by frame', () => {
  it('says hello with the protocol, server version and limits, and registers an agent nobody declared', async () => {
    const w = await TestWorker.connect(server.baseUrl);
    open.push(w);
    const hello = await w.waitForType('hello');
    expect(AgentServerMessageSchema.safeParse(hello).success).toBe(true);
    expect(hello).toMatchObject({ protocol: 'interthought-agent/1', serverVersion: expect.any(String), workerId: expect.stringMatching(/^w_/u) });
    expect(hello.limits).toMatchObject({ maxRunsPerWorker: 16, maxStepChars: 100_000, heartbeatMs: 1_000 });
    w.send({ type: 'agent.register', id: 'a1', agents: [{ name: 'py-math', description: 'Arithmetic in Python' }] });
    const registered = await w.waitForType('agent.registered');
    expect(registered).toEqual({ type: 'agent.registered', requestId: 'a1', agents: [{ name: 'py-math', description: 'Arithmetic in Python' }] });
    const agents = (await (await fetch(`${server.baseUrl}/api/agents`)).json()) as Array<{ name: string; available: boolean }>;
    expect(agents).toContainEqual(expect.objectContaining({ name: 'py-math', available: true }));
  });

  it('streams a run to a /ws viewer: run.start with the task, steps and deltas as events, run.end completes the session', async () => {
    const w = await worker('py-math');
    const client = await viewer();
    client.send({ type: 'session.create', task: 'What is 6*7?', agent: 'py-math', options: { tokenDelayMs: 0 } });
    const created = await client.waitForType('session.created');
    const start = await w.waitForType('run.start');
    expect(start).toMatchObject({ sessionId: created.session.sessionId, agent: 'py-math', task: 'What is 6*7?', chain: [], options: { tokenDelayMs: 0 } });
    w.step(start.runId, 'a', 'thought', 'I will multiply 6 by 7.');
    w.step(start.runId, 'b', 'final_answer', '42');
    w.send({ type: 'usage', runId: start.runId, model: 'test-model', usage: { inputTokens: 10, outputTokens: 5 }, refs: ['a', 'b'] });
    w.send({ type: 'run.end', runId: start.runId });
    const events = await client.untilFinished(created.session.sessionId);
    const status = events.filter((event) => event.type === 'session.status').at(-1);
    expect(status).toMatchObject({ status: 'completed' });
    const completed = events.filter((event) => event.type === 'step.completed').map((event) => (event as { content: string }).content);
    expect(completed).toEqual(['I will multiply 6 by 7.', '42']);
    expect(events.filter((event) => event.type === 'step.delta').length).toBeGreaterThanOrEqual(6);
    expect(events.some((event) => event.type === 'usage.recorded')).toBe(true);
  });

  it('fails the session with the message of run.fail', async () => {
    const w = await worker('py-math');
    const client = await viewer();
    client.send({ type: 'session.create', task: 'Divide by zero', agent: 'py-math' });
    const created = await client.waitForType('session.created');
    const start = await w.waitForType('run.start');
    w.send({ type: 'notice', runId: start.runId, detail: 'thinking hard' });
    w.send({ type: 'run.fail', runId: start.runId, message: 'the model endpoint said 500' });
    const events = await client.untilFinished(created.session.sessionId);
    expect(events.some((event) => event.type === 'session.status' && event.detail === 'thinking hard')).toBe(true);
    expect(events.at(-1)).toMatchObject({ type: 'session.status', status: 'failed', error: 'the model endpoint said 500' });
  });

  it('refuses a name an in-process agent holds, and lists a remote agent unavailable once its last worker left', async () => {
    const w = await worker('py-math');
    w.send({ type: 'agent.register', id: 'taken', agents: [{ name: 'demo', description: 'mine now' }] });
    expect(await w.waitForType('error', (frame) => frame.requestId === 'taken')).toMatchObject({ code: 'NAME_TAKEN' });
    w.close();
    await w.closed;
    await expect.poll(async () => {
      const agents = (await (await fetch(`${server.baseUrl}/api/agents`)).json()) as Array<{ name: string; available: boolean; reason?: string }>;
      return agents.find((agent) => agent.name === 'py-math');
    }).toMatchObject({ available: false, reason: 'no worker connected' });
    const client = await viewer();
    client.send({ type: 'session.create', id: 'c1', task: 'x', agent: 'py-math' });
    expect(await client.answerTo('c1')).toMatchObject({ type: 'error', code: 'AGENT_UNAVAILABLE' });
  });

  it('answers 401 to a missing or wrong token', async () => {
    await expect(TestWorker.connect(server.baseUrl, null)).rejects.toThrow(/401/u);
    await expect(TestWorker.connect(server.baseUrl, 'wrong')).rejects.toThrow(/401/u);
    const second = await TestWorker.connect(server.baseUrl, 'other-token');
    second.close();
  });
});

describe('/ws/agents without INTERTHOUGHT_AGENT_TOKENS', () => {
  it('does not exist (404)', async () => {
    const bare = await startServer();
    try {
      await expect(TestWorker.connect(bare.baseUrl)).rejects.toThrow(/404/u);
    } finally {
      await bare.close();
    }
  });
});
