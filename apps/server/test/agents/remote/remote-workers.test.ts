import { afterEach, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../support/server.js';
import { TestClient } from '../../support/ws-client.js';
import { TestWorker, WORKER_TOKEN } from './worker-client.js';

let server: RunningServer | undefined;
const open: Array<{ close(): void }> = [];

afterEach(async () => {
  for (const socket of open.splice(0)) socket.close();
  await server?.close();
  server = undefined;
});

async function start(config: Record<string, unknown> = {}): Promise<RunningServer> {
  server = await startServer({ agentTokens: [WORKER_TOKEN], ...config });
  return server;
}

async function worker(name = 'py-agent'): Promise<TestWorker> {
  const w = await TestWorker.serving(server!.baseUrl, name);
  open.push(w);
  return w;
}

async function viewer(): Promise<TestClient> {
  const client = await TestClient.connect(server!.wsUrl);
  open.push(client.socket);
  return client;
}

async function createSession(client: TestClient, agent = 'py-agent', options: Record<string, unknown> = { tokenDelayMs: 0 }): Promise<string> {
  const id = client.send({ type: 'session.create', task: 'Think about it', agent, options });
  const created = await client.waitForType('session.created', (frame) => frame.requestId === id);
  return created.session.sessionId;
}

describe('remote agents: workers coming and going', () => {
  it('interrupts the session within 2 s when its worker goes away mid-run, and session.resume continues on another worker', async () => {
    await start();
    const first = await worker();
    const client = await viewer();
    const sessionId = await createSession(client);
    const run = await first.nthRunStart(1);
    first.send({ type: 'step.start', runId: run.runId, ref: 'a', kind: 'thought' });
    first.send({ type: 'step.delta', runId: run.runId, ref: 'a', text: 'Half a thought' });
    await client.waitFor((frame) => frame.type === 'step.delta' && frame.text === 'Half a thought');
    const second = await worker();
    const gone = Date.now();
    first.terminate();
    const interrupted = await client.waitForType('session.status', (frame) => frame.status === 'interrupted');
    expect(Date.now() - gone).toBeLessThan(2_000);
    expect(interrupted.detail).toMatch(/worker serving agent "py-agent" went away/u);
    client.send({ type: 'session.resume', sessionId });
    const resumed = await second.nthRunStart(1);
    expect(resumed.chain).toEqual([expect.objectContaining({ kind: 'thought', content: 'Half a thought', status: 'completed' })]);
    second.step(resumed.runId, 'f', 'final_answer', 'Done.');
    second.send({ type: 'run.end', runId: resumed.runId });
    expect((await client.untilFinished(sessionId)).at(-1)).toMatchObject({ status: 'completed' });
  });

  it('drops a worker that stops answering pings, within two heartbeats', async () => {
    await start({ agentHeartbeatMs: 300 });
    const w = await worker();
    const client = await viewer();
    await createSession(client);
    await w.nthRunStart(1);
    // A half-open connection: the socket stays, the pongs stop.
    const rawSocket = (w.socket as unknown as { _socket: { pause(): void } })._socket;
    rawSocket.pause();
    const interrupted = await client.waitForType('session.status', (frame) => frame.status === 'interrupted');
    expect(interrupted.detail).toMatch(/went away/u);
  });

  it('gives each run to the least busy worker of the agent', async () => {
    await start();
    const a = await worker();
    const b = await worker();
    const client = await viewer();
    for (let i = 0; i < 4; i += 1) await createSession(client);
    await a.nthRunStart(2);
    await b.nthRunStart(2);
    expect([a.runStarts().length, b.runStarts().length]).toEqual([2, 2]);
    // a finishes both of its runs: the next two go to it, the less busy.
    for (const run of a.runStarts()) {
      a.step(run.runId, 'f', 'final_answer', 'ok');
      a.send({ type: 'run.end', runId: run.runId });
    }
    await client.waitFor(() => client.frames.filter((frame) => frame.type === 'session.status' && frame.status === 'completed').length === 2);
    await createSession(client);
    await createSession(client);
    await a.nthRunStart(4);
    expect(b.runStarts()).toHaveLength(2);
  });
});

describe('remote agents: batching', () => {
  it('applies the frames of one socket read together, as an in-process agent\'s writes of a tick: one transaction, not one per delta', async () => {
    await start();
    const w = await worker();
    const client = await viewer();
    await createSession(client);
    const run = await w.nthRunStart(1);
    w.send({ type: 'step.start', runId: run.runId, ref: 'a', kind: 'thought' });
    await client.waitForType('step.started');
    const before = server!.app.sessions.stats.commits.transactions;
    w.sendTogether(Array.from({ length: 200 }, (_, i) => ({ type: 'step.delta', runId: run.runId, ref: 'a', text: `d${i} ` })));
    await client.waitFor((frame) => frame.type === 'step.delta' && frame.text === 'd199 ');
    const deltas = client.frames.filter((frame) => frame.type === 'step.delta');
    expect(deltas.map((frame) => (frame as { text: string }).text)).toEqual(Array.from({ length: 200 }, (_, i) => `d${i} `));
    // One read, one synchronous run: the outbox writes its events together (the old per-frame apply took 200).
    expect(server!.app.sessions.stats.commits.transactions - before).toBeLessThanOrEqual(2);
  });
});

describe('remote agents: backpressure', () => {
  it('tells the worker to wait (flow paused) while its frames pile up behind the pacing, and to go on once they drained', async () => {
    await start({ agentMaxQueuedFrames: 400 });
    const w = await worker();
    const client = await viewer();
    const sessionId = await createSession(client, 'py-agent', { tokenDelayMs: 5 });
    const run = await w.nthRunStart(1);
    w.send({ type: 'step.start', runId: run.runId, ref: 'a', kind: 'thought' });
    for (let i = 0; i < 120; i += 1) w.send({ type: 'step.delta', runId: run.runId, ref: 'a', text: `t${i} ` });
    expect(await w.waitForType('flow', (frame) => frame.paused)).toMatchObject({ runId: run.runId, paused: true });
    expect(await w.waitForType('flow', (frame) => !frame.paused)).toMatchObject({ runId: run.runId, paused: false });
    w.send({ type: 'step.end', runId: run.runId, ref: 'a' });
    w.send({ type: 'run.end', runId: run.runId });
    const events = await client.untilFinished(sessionId);
    expect(events.filter((event) => event.type === 'step.delta')).toHaveLength(120);
  });

  it('holds the frames of a paused session and says flow paused, then fails only the run that ignores it', async () => {
    await start({ agentMaxQueuedFrames: 40 });
    const w = await worker();
    const client = await viewer();
    const sessionId = await createSession(client);
    const run = await w.nthRunStart(1);
    w.send({ type: 'step.start', runId: run.runId, ref: 'a', kind: 'thought' });
    w.send({ type: 'step.delta', runId: run.runId, ref: 'a', text: 'before pause ' });
    await client.waitFor((frame) => frame.type === 'step.delta' && frame.text === 'before pause ');
    client.send({ type: 'session.pause', sessionId });
    await client.waitForType('session.status', (frame) => frame.status === 'paused');
    for (let i = 0; i < 10; i += 1) w.send({ type: 'step.delta', runId: run.runId, ref: 'a', text: `p${i} ` });
    expect(await w.waitForType('flow', (frame) => frame.paused)).toMatchObject({ runId: run.runId });
    for (let i = 0; i < 60; i += 1) w.send({ type: 'step.delta', runId: run.runId, ref: 'a', text: `x${i} ` });
    expect(await w.waitForType('error', (frame) => frame.code === 'FLOW_EXCEEDED')).toMatchObject({ runId: run.runId });
    await w.waitForType('run.abort', (frame) => frame.runId === run.runId);
    const failed = await client.waitForType('session.status', (frame) => frame.status === 'failed');
    expect(failed.error).toMatch(/flow/u);
  });
});
