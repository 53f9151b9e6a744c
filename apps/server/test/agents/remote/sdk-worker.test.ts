import type { AddressInfo } from 'node:net';
import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import {
  connectWorker,
  createToolbox,
  runServerTool,
  ServerToolError,
  WorkerRefusedError,
  type AgentWorker,
  type ConnectWorkerOptions,
  type WorkerAgent,
  type WorkerEvent,
} from '@interthought/agent';
import { buildApp } from '../../../src/app.js';
import { startServer, type RunningServer } from '../../support/server.js';
import { testConfig } from '../../support/config.js';
import { TestClient } from '../../support/ws-client.js';
import { WORKER_TOKEN } from './worker-client.js';
import { sdkWorkerServerPerTest } from './worker-server-per-test.js';

const host = sdkWorkerServerPerTest();
const { workers, clients } = host;

async function start(config: Parameters<typeof startServer>[0] = {}): Promise<RunningServer> {
  host.server = await startServer({ agentTokens: [WORKER_TOKEN], ...config });
  return host.server;
}

async function serve(agent: WorkerAgent, options: Partial<ConnectWorkerOptions> = {}): Promise<AgentWorker> {
  const worker = await connectWorker({ url: host.server!.baseUrl, token: WORKER_TOKEN, agents: [agent], reconnect: { initialMs: 50, maxMs: 200 }, ...options });
  workers.push(worker);
  return worker;
}

async function viewer(): Promise<TestClient> {
  const client = await TestClient.connect(host.server!.wsUrl);
  clients.push(client);
  return client;
}

async function steps(sessionId: string) {
  const snapshot = (await host.server!.app.sessions.snapshot(sessionId))!;
  return snapshot.chain.map((id) => snapshot.steps.find((step) => step.stepId === id)!);
}

function agentOf(name: string, run: WorkerAgent['run']): WorkerAgent {
  return { name, description: `${name}, a test agent`, run };
}

const answer = async (context: Parameters<WorkerAgent['run']>[0], text: string): Promise<void> => {
  const writer = context.sink.start('final_answer');
  await writer.write(text);
  writer.end();
};

describe('connectWorker: runs', () => {
  it('streams steps, usage and a notice, then run.end completes the session', async () => {
    await start();
    await serve(
      agentOf('sdk-agent', async (context) => {
        const thought = context.sink.start('thought');
        await thought.write('Thinking ');
        await thought.write('hard.');
        thought.end();
        context.sink.notice('retrying in 0 s');
        context.sink.usage({ model: 'test-model', usage: { inputTokens: 10, outputTokens: 4 }, stepIds: [thought.stepId] });
        await answer(context, `The task was: ${context.task}`);
      }),
    );
    const client = await viewer();
    const sessionId = await client.createSession('Say something', { agent: 'sdk-agent' });
    expect((await client.untilFinished(sessionId)).at(-1)).toMatchObject({ status: 'completed' });
    expect((await steps(sessionId)).map((step) => [step.kind, step.content])).toEqual([
      ['thought', 'Thinking hard.'],
      ['final_answer', 'The task was: Say something'],
    ]);
    expect(client.events(sessionId).some((event) => event.type === 'session.status' && event.detail === 'retrying in 0 s')).toBe(true);
    expect((await host.server!.app.sessions.snapshot(sessionId))!.session.usage).toMatchObject({ inputTokens: 10, outputTokens: 4 });
  });

  it("fails the session with the agent's error message when its run throws", async () => {
    await start();
    await serve(
      agentOf('sdk-agent', async () => {
        throw new Error('The model endpoint said no.');
      }),
    );
    const client = await viewer();
    const sessionId = await client.createSession('Fail', { agent: 'sdk-agent' });
    expect((await client.untilFinished(sessionId)).at(-1)).toMatchObject({ status: 'failed', error: 'The model endpoint said no.' });
  });

  it("aborts the run's signal on run.abort (a cancel), and the agent's writes reject", async () => {
    await start();
    let seen: { aborted: boolean; reason: string; write: unknown } | undefined;
    const stopped = new Promise<void>((resolve) => {
      void serve(
        agentOf('sdk-agent', async (context) => {
          const thought = context.sink.start('thought');
          await thought.write('Waiting for the user ');
          await new Promise<void>((wake) => context.signal.addEventListener('abort', () => wake(), { once: true }));
          const write = await thought.write('late').catch((error: unknown) => error);
          seen = { aborted: context.signal.aborted, reason: String((context.signal.reason as Error).message), write };
          resolve();
          context.signal.throwIfAborted();
        }),
      );
    });
    await vi.waitUntil(() => workers.length === 1);
    const client = await viewer();
    const sessionId = await client.createSession('Wait', { agent: 'sdk-agent' });
    await client.waitFor((frame) => frame.type === 'step.delta' && frame.text === 'Waiting for the user ');
    client.send({ type: 'session.cancel', sessionId });
    await stopped;
    expect(seen).toMatchObject({ aborted: true, reason: expect.stringMatching(/cancel/iu), write: expect.objectContaining({ name: 'AbortError' }) });
    expect((await client.untilFinished(sessionId)).at(-1)).toMatchObject({ status: 'cancelled' });
  });

  it('honours flow control: awaited writes and backpressure() wait while the server holds the run, so nothing is refused', async () => {
    await start({ agentMaxQueuedFrames: 80 });
    const events: WorkerEvent[] = [];
    await serve(
      agentOf('sdk-agent', async (context) => {
        const awaited = context.sink.start('thought');
        for (let i = 0; i < 150; i += 1) await awaited.write(`a${i} `);
        awaited.end();
        // Writes issued without awaiting each, checking backpressure between them, as a stream writer does.
        const batched = context.sink.start('thought');
        const writes: Promise<void>[] = [];
        for (let i = 0; i < 150; i += 1) {
          writes.push(batched.write(`b${i} `));
          const held = batched.backpressure?.();
          if (held !== undefined) await held;
        }
        await Promise.all(writes);
        batched.end();
        await answer(context, 'done');
      }),
      { onEvent: (event) => events.push(event) },
    );
    const client = await viewer();
    const sessionId = await client.createSession('Stream', { agent: 'sdk-agent', options: { tokenDelayMs: 2 } });
    const finished = await client.untilFinished(sessionId, 15_000);
    expect(finished.at(-1)).toMatchObject({ status: 'completed' });
    expect(finished.filter((event) => event.type === 'step.delta')).toHaveLength(301);
    expect(events.filter((event) => event.type === 'refused')).toEqual([]);
  });
});

describe('connectWorker: tools', () => {
  it("runs the worker's own tool only after call.cleared, and not at all while the call waits for approval", async () => {
    await start();
    const execute = vi.fn(async (input: unknown) => ({ output: { echoed: input }, text: `echo: ${JSON.stringify(input)}` }));
    const tools = createToolbox([{ name: 'echo', description: 'Echoes its input', inputSchema: z.object({ say: z.string() }), execute }]);
    await serve(
      agentOf('sdk-agent', async (context) => {
        const last = context.chain.at(-1);
        if (last === undefined) {
          const call = context.sink.start('tool_call', { tool: 'echo' });
          await call.write('{"say":"hi"}');
          call.end();
        }
        // The chain's call, or the one just written: run it, cleared by the server.
        const input = context.call?.input ?? { say: 'hi' };
        const result = await context.tools.get('echo')!.execute(input, context.signal);
        const observation = context.sink.start('observation', { tool: 'echo' });
        await observation.write(result.text);
        observation.end({ result: result.output });
        await answer(context, `said ${JSON.stringify(input)}`);
      }),
      { tools },
    );
    const client = await viewer();
    const free = await client.createSession('Echo', { agent: 'sdk-agent' });
    expect((await client.untilFinished(free)).at(-1)).toMatchObject({ status: 'completed' });
    expect(execute).toHaveBeenCalledTimes(1);

    const gated = await client.createSession('Echo', { agent: 'sdk-agent', options: { approve: ['echo'] } });
    const requested = await client.waitForType('approval.requested', (frame) => frame.sessionId === gated);
    await client.waitForType('session.status', (frame) => frame.sessionId === gated && frame.status === 'waiting');
    expect(execute).toHaveBeenCalledTimes(1);
    client.send({ type: 'session.message', sessionId: gated, text: 'x' });
    client.send({ type: 'step.correct', sessionId: gated, stepId: requested.stepId, content: '{"say":"edited"}' });
    expect((await client.untilFinished(gated)).at(-1)).toMatchObject({ status: 'completed' });
    expect(execute).toHaveBeenCalledTimes(2);
    expect(execute.mock.calls[1]![0]).toEqual({ say: 'edited' });
    expect((await steps(gated)).map((step) => step.kind)).toEqual(['tool_call', 'observation', 'final_answer']);
  });

  it("runs a server tool with runServerTool: the server writes the call and its observation; a bad one is a ServerToolError", async () => {
    await start();
    let refused: unknown;
    await serve(
      agentOf('sdk-agent', async (context) => {
        const result = await runServerTool(context, 'calculator', { expression: '6*7' });
        refused = await context.runServerTool('no_such_tool', {}).catch((error: unknown) => error);
        await answer(context, `${result.ok} ${JSON.stringify(result.output)}`);
      }),
    );
    const client = await viewer();
    const sessionId = await client.createSession('Compute', { agent: 'sdk-agent' });
    expect((await client.untilFinished(sessionId)).at(-1)).toMatchObject({ status: 'completed' });
    const chain = await steps(sessionId);
    expect(chain.map((step) => [step.kind, step.tool])).toEqual([
      ['tool_call', 'calculator'],
      ['observation', 'calculator'],
      ['final_answer', undefined],
    ]);
    expect(chain.at(-1)!.content).toMatch(/^true .*42/u);
    expect(refused).toBeInstanceOf(ServerToolError);
    expect(refused).toMatchObject({ code: 'TOOL_NOT_FOUND' });
  });
});

describe('connectWorker: the connection', () => {
  it('refuses a wrong token with a WorkerRefusedError, without retrying', async () => {
    await start();
    await expect(connectWorker({ url: host.server!.baseUrl, token: 'wrong', agents: [agentOf('sdk-agent', async () => undefined)] })).rejects.toThrow(WorkerRefusedError);
  });

  it('refuses to register a name the server runs in process', async () => {
    await start();
    await expect(connectWorker({ url: host.server!.baseUrl, token: WORKER_TOKEN, agents: [agentOf('demo', async () => undefined)] })).rejects.toThrow(/NAME_TAKEN/u);
  });

  it('reconnects with backoff after the server went away and registers its agents again', async () => {
    await start();
    const { port } = host.server!.app.server.address() as AddressInfo;
    const events: WorkerEvent[] = [];
    const worker = await serve(agentOf('sdk-agent', (context) => answer(context, 'back again')), { onEvent: (event) => events.push(event) });
    const firstId = worker.workerId;
    await host.server!.close();
    host.server = undefined;
    await vi.waitUntil(() => events.some((event) => event.type === 'disconnected'), { timeout: 5_000 });
    expect(worker.connected).toBe(false);
    const app = await buildApp(testConfig({ agentTokens: [WORKER_TOKEN] }), { logger: false });
    await app.listen({ host: '127.0.0.1', port });
    host.server = { app, config: testConfig(), baseUrl: `http://127.0.0.1:${port}`, wsUrl: `ws://127.0.0.1:${port}/ws`, close: () => app.close() };
    await vi.waitUntil(() => events.filter((event) => event.type === 'registered').length === 2, { timeout: 5_000 });
    expect(worker.workerId).not.toBe(firstId);
    expect(events.find((event) => event.type === 'disconnected')).toMatchObject({ retryInMs: expect.any(Number) });
    const client = await viewer();
    const sessionId = await client.createSession('Again', { agent: 'sdk-agent' });
    expect((await client.untilFinished(sessionId)).at(-1)).toMatchObject({ status: 'completed' });
  });

  it('close() ends the connection cleanly: the agent stays listed, unavailable', async () => {
    await start();
    const worker = await serve(agentOf('sdk-agent', (context) => answer(context, 'ok')));
    await worker.close();
    await expect(worker.closed).resolves.toBeUndefined();
    await vi.waitUntil(async () => {
      const listed = (await (await fetch(`${host.server!.baseUrl}/api/agents`)).json()) as Array<{ name: string; available: boolean }>;
      return listed.find((agent) => agent.name === 'sdk-agent')?.available === false;
    });
  });
});
