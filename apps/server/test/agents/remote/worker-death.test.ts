import { afterEach, describe, expect, it } from 'vitest';
import { connectWorker, type AgentWorker } from '@interthought/agent';
import { createDemoAgent } from '../../../src/agents/demo/index.js';
import { createDefaultTools } from '../../../src/tools/index.js';
import { startServer, type RunningServer } from '../../support/server.js';
import { TestClient } from '../../support/ws-client.js';
import { WORKER_TOKEN } from './worker-client.js';
import { spawnDemoWorker, type WorkerProcess } from './worker-process.js';

let server: RunningServer | undefined;
let child: WorkerProcess | undefined;
let worker: AgentWorker | undefined;
let client: TestClient | undefined;

afterEach(async () => {
  await client?.close();
  await worker?.close();
  child?.child.kill('SIGKILL');
  await child?.exited;
  await server?.close();
});

describe('a worker process killed mid-run', () => {
  it('interrupts its session within 2 s with the detail, and the session resumes on another worker to completion', async () => {
    server = await startServer({ agentTokens: [WORKER_TOKEN] });
    // Each token takes 40 ms in the worker, as a model's would: the run is still going when the process dies.
    child = await spawnDemoWorker(server.baseUrl, WORKER_TOKEN, 'demo-remote', { delayMs: 40 });
    client = await TestClient.connect(server.wsUrl);
    const sessionId = await client.createSession('What is 12 * 7?', { agent: 'demo-remote', options: { tokenDelayMs: 0 } });
    await client.waitFor((frame) => frame.type === 'step.delta' && frame.sessionId === sessionId);
    // The other worker joins only now, so the run was the child's.
    worker = await connectWorker({ url: server.baseUrl, token: WORKER_TOKEN, agents: [{ agent: createDemoAgent(), name: 'demo-remote' }], tools: createDefaultTools() });

    const killed = Date.now();
    child.child.kill('SIGKILL');
    const interrupted = await client.waitForType('session.status', (frame) => frame.sessionId === sessionId && frame.status === 'interrupted');
    expect(Date.now() - killed).toBeLessThan(2_000);
    expect(interrupted.detail).toBe('The worker serving agent "demo-remote" went away mid-run: resume to continue.');
    expect(await child.exited).toBe('SIGKILL');

    client.send({ type: 'session.resume', sessionId });
    expect((await client.untilFinished(sessionId)).at(-1)).toMatchObject({ status: 'completed' });
    const snapshot = (await server.app.sessions.snapshot(sessionId))!;
    const chain = snapshot.chain.map((id) => snapshot.steps.find((step) => step.stepId === id)!);
    expect(chain.at(-1)).toMatchObject({ kind: 'final_answer', content: expect.stringContaining('84') });
    expect(chain.filter((step) => step.kind === 'tool_call')).toHaveLength(1);
  });
});
