import { afterEach, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../support/server.js';
import { TestClient } from '../../support/ws-client.js';
import { TestWorker, WORKER_TOKEN } from './worker-client.js';

let server: RunningServer;
const open: Array<{ close(): void }> = [];

afterEach(async () => {
  for (const socket of open.splice(0)) socket.close();
  await server.close();
});

describe('remote agents: a hostile worker', () => {
  it('gets typed errors for fuzzed frames, foreign runIds, oversized frames and a flood, while a bystander session on another worker is undisturbed', async () => {
    server = await startServer({ agentTokens: [WORKER_TOKEN], agentMaxFrameBytes: 4_096, agentFramesPerSecond: 50, agentFrameBurst: 100 });
    const honest = await TestWorker.serving(server.baseUrl, 'honest');
    const hostile = await TestWorker.serving(server.baseUrl, 'hostile');
    const client = await TestClient.connect(server.wsUrl);
    open.push(honest, hostile, client.socket);
    const bystanderId = client.send({ type: 'session.create', task: 'Stay calm', agent: 'honest', options: { tokenDelayMs: 0 } });
    const bystander = (await client.waitForType('session.created', (frame) => frame.requestId === bystanderId)).session.sessionId;
    const honestRun = await honest.nthRunStart(1);
    honest.send({ type: 'step.start', runId: honestRun.runId, ref: 'a', kind: 'thought' });
    honest.send({ type: 'step.delta', runId: honestRun.runId, ref: 'a', text: 'calm ' });

    const hostileId = client.send({ type: 'session.create', task: 'Cause trouble', agent: 'hostile', options: { tokenDelayMs: 0 } });
    await client.waitForType('session.created', (frame) => frame.requestId === hostileId);
    const hostileRun = await hostile.nthRunStart(1);

    const errorsBefore = (): number => hostile.frames.filter((frame) => frame.type === 'error').length;
    const expectError = async (send: () => void, code: string): Promise<void> => {
      const seen = errorsBefore();
      send();
      await hostile.waitFor(() => errorsBefore() > seen, `an error ${code}`);
      const last = hostile.frames.filter((frame) => frame.type === 'error').at(-1);
      expect(last).toMatchObject({ code });
    };
    await expectError(() => hostile.sendRaw('{not json'), 'BAD_JSON');
    await expectError(() => hostile.sendRaw(Buffer.from([1, 2, 3]), true), 'BAD_JSON');
    await expectError(() => hostile.send({ type: 'session.create', task: 'x' }), 'UNKNOWN_TYPE');
    await expectError(() => hostile.send({ type: 'step.start', runId: hostileRun.runId, ref: 'a', kind: 'user_message' }), 'BAD_FRAME');
    await expectError(() => hostile.send({ type: 'run.end', runId: hostileRun.runId, sneaky: true }), 'BAD_FRAME');
    await expectError(() => hostile.send({ type: 'step.start', runId: honestRun.runId, ref: 'x', kind: 'thought' }), 'UNKNOWN_RUN');
    await expectError(() => hostile.send({ type: 'run.end', runId: honestRun.runId }), 'UNKNOWN_RUN');
    await expectError(() => hostile.send({ type: 'step.delta', runId: hostileRun.runId, ref: 'never', text: 'x' }), 'UNKNOWN_STEP');
    hostile.send({ type: 'step.start', runId: hostileRun.runId, ref: 'a', kind: 'thought' });
    await expectError(() => hostile.send({ type: 'step.start', runId: hostileRun.runId, ref: 'a', kind: 'thought' }), 'DUPLICATE_REF');
    await expectError(() => hostile.send({ type: 'step.delta', runId: hostileRun.runId, ref: 'a', text: 'x'.repeat(10_000) }), 'FRAME_TOO_LARGE');
    await expectError(() => hostile.send({ type: 'usage', runId: hostileRun.runId, model: 'm', usage: { inputTokens: 1, outputTokens: 1 }, refs: ['ghost'] }), 'BAD_USAGE');
    await expectError(() => {
      for (let i = 0; i < 150; i += 1) hostile.send({ type: 'notice', runId: hostileRun.runId, detail: `flood ${i}` });
    }, 'RATE_LIMITED');

    // The bystander's run never noticed: its worker still writes, and its session completes.
    honest.send({ type: 'step.end', runId: honestRun.runId, ref: 'a' });
    honest.step(honestRun.runId, 'f', 'final_answer', 'All good.');
    honest.send({ type: 'run.end', runId: honestRun.runId });
    const events = await client.untilFinished(bystander);
    expect(events.at(-1)).toMatchObject({ status: 'completed' });
    expect(events.filter((event) => event.type === 'step.completed').map((event) => event.type === 'step.completed' && event.content)).toEqual(['calm ', 'All good.']);
    expect(honest.frames.some((frame) => frame.type === 'error' || frame.type === 'run.abort')).toBe(false);

    // A frame over the socket limit closes only the hostile worker (1009); the server goes on.
    hostile.sendRaw(JSON.stringify({ type: 'notice', runId: hostileRun.runId, detail: 'x'.repeat(server.config.maxFrameBytes + 10) }));
    expect((await hostile.closed).code).toBe(1009);
    const interrupted = await client.waitForType('session.status', (frame) => frame.status === 'interrupted');
    expect(interrupted.sessionId).not.toBe(bystander);
    const health = await fetch(`${server.baseUrl}/api/health`);
    expect(health.status).toBe(200);
  });
});
