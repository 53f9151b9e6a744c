import { afterEach, describe, expect, it } from 'vitest';
import { connectWorker, delegate, type AgentWorker, type ServerToolResult, type WorkerAgent } from '@interthought/agent';
import { startServer, type RunningServer } from '../../support/server.js';
import { TestClient } from '../../support/ws-client.js';
import { WORKER_TOKEN } from './worker-client.js';

// A remote worker starting sub-agents through the SDK (PROTOCOL.md §24.8, Part II §A6.2): its
// `delegate(...)` sends one tool.run of the server's delegate per part, over a real socket; the
// server runs them as one batch, each sub-agent (the worker's agent again) in its call's scope.

let server: RunningServer | undefined;
const workers: AgentWorker[] = [];
let client: TestClient | undefined;

afterEach(async () => {
  await client?.close();
  for (const worker of workers.splice(0)) await worker.close();
  await server?.close();
  server = undefined;
});

const TOP = 'Two parts: 17 * 23 + 4, and 15% of 240.';
const PARTS = ['What is 17 * 23 + 4?', 'What is 15% of 240?'];
const ANSWERS: Record<string, string> = { 'What is 17 * 23 + 4?': '395', 'What is 15% of 240?': '36' };

describe('connectWorker: sub-agents', () => {
  it('delegate(...) runs the parts as one batch of parallel sub-agents and gives their answers in order', async () => {
    server = await startServer({ agentTokens: [WORKER_TOKEN] });
    const started: string[] = [];
    let bothRunning!: () => void;
    const together = new Promise<void>((resolve) => (bothRunning = resolve));
    let results: ServerToolResult[] = [];
    const planner: WorkerAgent = {
      name: 'py-planner',
      description: 'Splits a task into parts',
      async run(context) {
        if (context.task === TOP) {
          results = await delegate(context, { task: PARTS[0]!, name: 'part 1' }, { task: PARTS[1]!, name: 'part 2' });
          const writer = context.sink.start('final_answer');
          await writer.write(results.map((result) => result.text).join(' and '));
          writer.end();
          return;
        }
        // A sub-agent's run: each waits until the other one runs too, which only a batch allows.
        started.push(context.task);
        if (started.length === 2) bothRunning();
        await together;
        const writer = context.sink.start('final_answer');
        await writer.write(ANSWERS[context.task] ?? '?');
        writer.end();
      },
    };
    workers.push(await connectWorker({ url: server.baseUrl, token: WORKER_TOKEN, agents: [planner], reconnect: { initialMs: 50, maxMs: 200 } }));
    client = await TestClient.connect(server.wsUrl);
    const sessionId = await client.createSession(TOP, { agent: 'py-planner' });
    expect((await client.untilFinished(sessionId)).at(-1)).toMatchObject({ status: 'completed' });

    const snapshot = (await server.app.sessions.snapshot(sessionId))!;
    const chain = snapshot.chain.map((id) => snapshot.steps.find((step) => step.stepId === id)!);
    expect(chain.map((step) => `${step.kind}${step.tool === undefined ? '' : `:${step.tool}`} ${step.content}`)).toEqual([
      `tool_call:delegate ${JSON.stringify({ task: PARTS[0], name: 'part 1' })}`,
      `tool_call:delegate ${JSON.stringify({ task: PARTS[1], name: 'part 2' })}`,
      'observation:delegate 395',
      'observation:delegate 36',
      'final_answer 395 and 36',
    ]);
    expect(new Set(started)).toEqual(new Set(PARTS));
    expect(results.map((result) => [result.ok, result.text, result.callStepId, result.observationStepId])).toEqual([
      [true, '395', chain[0]!.stepId, chain[2]!.stepId],
      [true, '36', chain[1]!.stepId, chain[3]!.stepId],
    ]);
    expect(snapshot.subagents?.map((info) => [info.scope, info.name, info.agent, info.task, info.status])).toEqual([
      [chain[0]!.stepId, 'part 1', 'py-planner', PARTS[0], 'completed'],
      [chain[1]!.stepId, 'part 2', 'py-planner', PARTS[1], 'completed'],
    ]);
    // The sub-agents' steps are in their scopes.
    for (const info of snapshot.subagents ?? []) {
      const scoped = info.chain.map((id) => snapshot.steps.find((step) => step.stepId === id)!);
      expect(scoped.map((step) => [step.kind, step.scope])).toEqual([['final_answer', info.scope]]);
    }
  });
});
