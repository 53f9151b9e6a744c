import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SessionEvent, Step } from '@interthought/protocol';
import { connectWorker, type AgentWorker } from '@interthought/agent';
import { createDemoAgent } from '../../../src/agents/demo/index.js';
import { createDefaultTools } from '../../../src/tools/index.js';
import { startServer, type RunningServer } from '../../support/server.js';
import { TestClient } from '../../support/ws-client.js';
import { WORKER_TOKEN } from './worker-client.js';
import { spawnDemoWorker, type WorkerProcess } from './worker-process.js';

/**
 * One contract: the demo agent passes the same behavioural tests in the server's process, served
 * by `connectWorker` in this process, and served by a worker process of its own.
 */
type Mode = 'in process' | 'as a worker' | 'as a worker in a child process';
const MODES: Mode[] = ['in process', 'as a worker', 'as a worker in a child process'];
const FINAL: ReadonlySet<string> = new Set(['completed', 'failed', 'cancelled']);

describe.each(MODES)('the demo agent %s', (mode) => {
  let server: RunningServer;
  let agent: string;
  let worker: AgentWorker | undefined;
  let child: WorkerProcess | undefined;
  const clients: TestClient[] = [];

  beforeAll(async () => {
    server = await startServer({ agentTokens: [WORKER_TOKEN] });
    agent = mode === 'in process' ? 'demo' : 'demo-remote';
    if (mode === 'as a worker') {
      worker = await connectWorker({ url: server.baseUrl, token: WORKER_TOKEN, agents: [{ agent: createDemoAgent(), name: agent }], tools: createDefaultTools() });
    } else if (mode === 'as a worker in a child process') {
      child = await spawnDemoWorker(server.baseUrl, WORKER_TOKEN, agent);
    }
  }, 30_000);

  afterAll(async () => {
    for (const client of clients) await client.close();
    await worker?.close();
    child?.child.kill('SIGKILL');
    await child?.exited;
    await server.close();
  });

  async function session(task: string, options: Record<string, unknown> = {}): Promise<{ client: TestClient; sessionId: string }> {
    const client = await TestClient.connect(server.wsUrl);
    clients.push(client);
    const sessionId = await client.createSession(task, { agent, options: { tokenDelayMs: 0, ...options } });
    return { client, sessionId };
  }

  /** Wait for the session's `count`-th final status (a turn's end). */
  function finished(client: TestClient, sessionId: string, count = 1): Promise<SessionEvent[]> {
    const finals = (): number => client.events(sessionId).filter((event) => event.type === 'session.status' && FINAL.has(event.status)).length;
    return client.waitFor(() => finals() >= count, `turn ${count} of ${sessionId} to end`).then(() => client.events(sessionId));
  }

  async function chainOf(sessionId: string): Promise<Step[]> {
    const snapshot = (await server.app.sessions.snapshot(sessionId))!;
    return snapshot.chain.map((id) => snapshot.steps.find((step) => step.stepId === id)!);
  }

  it('calculates with a tool call and answers from its result', async () => {
    const { client, sessionId } = await session('What is 12 * 7?');
    expect((await finished(client, sessionId)).at(-1)).toMatchObject({ type: 'session.status', status: 'completed' });
    const chain = await chainOf(sessionId);
    expect(chain.map((step) => step.kind)).toEqual(['thought', 'action', 'tool_call', 'observation', 'final_answer']);
    expect(chain[2]).toMatchObject({ kind: 'tool_call', tool: 'calculator', content: JSON.stringify({ expression: '12 * 7' }) });
    expect(chain[3]).toMatchObject({ kind: 'observation', tool: 'calculator', result: { value: 84 } });
    expect(chain.at(-1)!.content).toContain('84');
  });

  it('re-runs the calculator with a corrected tool call and answers from the new result', async () => {
    const { client, sessionId } = await session('What is 12 * 7?');
    await finished(client, sessionId);
    const toolCall = (await chainOf(sessionId)).find((step) => step.kind === 'tool_call')!;
    client.send({ type: 'step.correct', sessionId, stepId: toolCall.stepId, content: JSON.stringify({ expression: '12 * 8' }) });
    expect((await finished(client, sessionId, 2)).at(-1)).toMatchObject({ status: 'completed' });
    const chain = await chainOf(sessionId);
    expect(chain[toolCall.index]).toMatchObject({ kind: 'tool_call', status: 'corrected' });
    expect(chain[toolCall.index + 1]).toMatchObject({ kind: 'observation', result: { value: 96 } });
    expect(chain.at(-1)!.content).toContain('96');
  });

  it('changes its next tool call and its answer when a quantity in a thought is corrected', async () => {
    const { client, sessionId } = await session('小明有12个苹果，吃了3个，又买了5个，现在有几个？');
    await finished(client, sessionId);
    const thought = (await chainOf(sessionId))[0]!;
    expect(thought.kind).toBe('thought');
    client.send({ type: 'step.correct', sessionId, stepId: thought.stepId, content: thought.content.replace('12个苹果', '20个苹果') });
    await finished(client, sessionId, 2);
    const chain = await chainOf(sessionId);
    expect(chain.map((step) => step.kind)).toEqual(['thought', 'action', 'tool_call', 'observation', 'final_answer']);
    expect(chain[0]).toMatchObject({ status: 'corrected' });
    expect(JSON.parse(chain[2]!.content)).toEqual({ expression: '20 - 3 + 5' });
    expect(chain.at(-1)!.content).toBe('小明现在有22个苹果。');
  });

  it('takes a follow-up message as a new turn with the whole chain as context', async () => {
    const { client, sessionId } = await session('What is 12 * 7?');
    await finished(client, sessionId);
    client.send({ type: 'session.message', sessionId, text: 'Add 10 to that.' });
    expect((await finished(client, sessionId, 2)).at(-1)).toMatchObject({ status: 'completed' });
    const chain = await chainOf(sessionId);
    const message = chain.findIndex((step) => step.kind === 'user_message');
    expect(message).toBe(5);
    expect(chain.slice(message + 1).find((step) => step.kind === 'observation')).toMatchObject({ result: { value: 94 } });
    expect(chain.at(-1)).toMatchObject({ kind: 'final_answer', content: expect.stringContaining('94') });
  });

  it('waits for approval before its calculator call runs, and approving runs it to the answer', async () => {
    const { client, sessionId } = await session('What is 12 * 7?', { approve: ['calculator'] });
    const requested = await client.waitForType('approval.requested');
    expect(requested).toMatchObject({ sessionId, tool: 'calculator', input: { expression: '12 * 7' } });
    await client.waitForType('session.status', (frame) => frame.status === 'waiting');
    const waiting = await chainOf(sessionId);
    expect(waiting.at(-1)).toMatchObject({ kind: 'tool_call', approval: { state: 'pending' } });
    expect(waiting.some((step) => step.kind === 'observation')).toBe(false);
    client.send({ type: 'tool.approve', sessionId, stepId: requested.stepId });
    expect((await finished(client, sessionId)).at(-1)).toMatchObject({ status: 'completed' });
    const chain = await chainOf(sessionId);
    expect(chain.map((step) => step.kind).slice(-3)).toEqual(['tool_call', 'observation', 'final_answer']);
    expect(chain.find((step) => step.stepId === requested.stepId)!.approval).toMatchObject({ state: 'approved' });
    expect(chain.at(-1)!.content).toContain('84');
  });
});
