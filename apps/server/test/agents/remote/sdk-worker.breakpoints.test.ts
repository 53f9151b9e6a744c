import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { connectWorker, createToolbox, runServerTool, type WorkerAgent, type WorkerRunContext } from '@interthought/agent';
import type { PendingCall, Step } from '@interthought/protocol';
import { startServer } from '../../support/server.js';
import { TestClient } from '../../support/ws-client.js';
import { WORKER_TOKEN } from './worker-client.js';
import { sdkWorkerServerPerTest } from './worker-server-per-test.js';

/*
 * A breakpoint in a worker's run (PROTOCOL.md §25.6): the server aborts the run (`run.abort`), and
 * after `session.resume` the next `run.start` carries the chain up to the step; a call of the
 * worker's own tool comes as `call` with `why: "resumed"`.
 */

const host = sdkWorkerServerPerTest();
const { workers, clients } = host;

/** What one `run.start` gave the agent, and how its run ended. */
interface SeenRun {
  chain: string[];
  call?: PendingCall;
  aborted?: string;
}

function kindsOf(chain: readonly Step[]): string[] {
  return chain.map((step) => (step.tool === undefined ? step.kind : `${step.kind}:${step.tool}`));
}

async function write(context: WorkerRunContext, kind: 'thought' | 'tool_call' | 'observation' | 'final_answer', text: string, extra: { tool?: string; result?: unknown } = {}): Promise<void> {
  const writer = context.sink.start(kind, extra.tool === undefined ? undefined : { tool: extra.tool });
  await writer.write(text);
  writer.end(extra.result === undefined ? undefined : { result: extra.result });
}

async function viewer(): Promise<TestClient> {
  const client = await TestClient.connect(host.server!.wsUrl);
  clients.push(client);
  return client;
}

async function chainOf(sessionId: string): Promise<Step[]> {
  const snapshot = (await host.server!.app.sessions.snapshot(sessionId))!;
  return snapshot.chain.map((id) => snapshot.steps.find((step) => step.stepId === id)!);
}

/** Run `body` as the worker agent's run, recording its start and whether it was aborted. */
function recorded(runs: SeenRun[], body: (context: WorkerRunContext) => Promise<void>): WorkerAgent['run'] {
  return async (context) => {
    const seen: SeenRun = { chain: kindsOf(context.chain), ...(context.call === undefined ? {} : { call: context.call }) };
    runs.push(seen);
    context.signal.addEventListener('abort', () => (seen.aborted = String((context.signal.reason as Error | undefined)?.message ?? 'aborted')), { once: true });
    await body(context);
  };
}

describe('a worker stopped at a breakpoint', () => {
  it("aborts the run before the worker's own tool runs; after resume run.start carries the call with why: resumed, and the tool runs", async () => {
    host.server = await startServer({ agentTokens: [WORKER_TOKEN] });
    const execute = vi.fn(async (input: unknown) => ({ output: { echoed: input }, text: `echo: ${JSON.stringify(input)}` }));
    const tools = createToolbox([{ name: 'echo', description: 'Echoes its input', inputSchema: z.object({ say: z.string() }), execute }]);
    const runs: SeenRun[] = [];
    const agent: WorkerAgent = {
      name: 'echo-agent',
      description: 'Echoes once, a test agent',
      run: recorded(runs, async (context) => {
        if (context.chain.length === 0) await write(context, 'tool_call', '{"say":"hi"}', { tool: 'echo' });
        const input = context.call?.input ?? { say: 'hi' };
        const result = await context.tools.get('echo')!.execute(input, context.signal);
        await write(context, 'observation', result.text, { tool: 'echo', result: result.output });
        await write(context, 'final_answer', `said ${JSON.stringify(input)}`);
      }),
    };
    workers.push(await connectWorker({ url: host.server.baseUrl, token: WORKER_TOKEN, agents: [agent], tools, reconnect: { initialMs: 50, maxMs: 200 } }));

    const client = await viewer();
    const sessionId = await client.createSession('Echo', { agent: 'echo-agent', options: { breakpoints: [{ kind: 'tool_call', tool: 'echo' }] } });
    const hit = await client.waitForType('breakpoint.hit', (frame) => frame.sessionId === sessionId);
    await client.waitForType('session.status', (frame) => frame.sessionId === sessionId && frame.status === 'paused');
    await vi.waitUntil(() => runs[0]?.aborted !== undefined);
    expect(runs[0]!.aborted).toMatch(/breakpoint/u);
    expect(execute).not.toHaveBeenCalled();
    expect(kindsOf(await chainOf(sessionId))).toEqual(['tool_call:echo']);

    client.send({ type: 'session.resume', sessionId });
    expect((await client.untilFinished(sessionId)).at(-1)).toMatchObject({ status: 'completed' });
    expect(runs).toHaveLength(2);
    expect(runs[1]).toMatchObject({ chain: ['tool_call:echo'], call: { stepId: hit.stepId, tool: 'echo', input: { say: 'hi' }, why: 'resumed' } });
    expect(execute).toHaveBeenCalledTimes(1);
    expect(kindsOf(await chainOf(sessionId))).toEqual(['tool_call:echo', 'observation:echo', 'final_answer']);
  });

  it('stops after a thought and before a server tool the worker asks for: each resume starts a run with the chain up to the stop', async () => {
    host.server = await startServer({ agentTokens: [WORKER_TOKEN] });
    const runs: SeenRun[] = [];
    const agent: WorkerAgent = {
      name: 'calc-agent',
      description: 'Thinks, then computes on the server, a test agent',
      run: recorded(runs, async (context) => {
        const last = context.chain.at(-1);
        if (last === undefined) await write(context, 'thought', 'I will multiply.');
        if (last === undefined || last.kind === 'thought') {
          const result = await runServerTool(context, 'calculator', { expression: '6*7' });
          await write(context, 'final_answer', `The answer: ${result.text}`);
          return;
        }
        await write(context, 'final_answer', `The answer: ${last.content}`);
      }),
    };
    workers.push(await connectWorker({ url: host.server.baseUrl, token: WORKER_TOKEN, agents: [agent], reconnect: { initialMs: 50, maxMs: 200 } }));

    const client = await viewer();
    const sessionId = await client.createSession('Multiply', { agent: 'calc-agent', options: { breakpoints: [{ kind: 'thought' }, { tool: 'calc*', kind: 'tool_call' }] } });
    const paused = (nth: number) =>
      client.waitFor((frame) => frame.type === 'session.status' && frame.sessionId === sessionId && frame.status === 'paused' && client.events(sessionId).filter((event) => event.type === 'breakpoint.hit').length >= nth);
    await paused(1);
    expect(kindsOf(await chainOf(sessionId))).toEqual(['thought']);
    client.send({ type: 'session.resume', sessionId });
    await paused(2);
    // The server wrote the call for the worker's tool.run, and stopped before running it.
    expect(kindsOf(await chainOf(sessionId))).toEqual(['thought', 'tool_call:calculator']);
    client.send({ type: 'session.resume', sessionId });
    expect((await client.untilFinished(sessionId)).at(-1)).toMatchObject({ status: 'completed' });

    expect(runs.map((run) => run.chain)).toEqual([[], ['thought'], ['thought', 'tool_call:calculator', 'observation:calculator']]);
    expect(runs.slice(0, 2).every((run) => run.aborted !== undefined)).toBe(true);
    // A server tool's call is answered by the server before the run starts: no `call` for the worker.
    expect(runs[2]!.call).toBeUndefined();
    const chain = await chainOf(sessionId);
    expect(kindsOf(chain)).toEqual(['thought', 'tool_call:calculator', 'observation:calculator', 'final_answer']);
    expect(chain.at(-1)!.content).toContain('42');
    expect(client.events(sessionId).filter((event) => event.type === 'breakpoint.hit').map((event) => (event.type === 'breakpoint.hit' ? event.index : -1))).toEqual([0, 1]);
  });
});
