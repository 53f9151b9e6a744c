import { describe, expect, it } from 'vitest';
import { TestClient } from '../../support/ws-client.js';
import { TestWorker } from './worker-client.js';
import { rawWorkerServerPerTest } from './worker-server-per-test.js';

/*
 * Rules and remembered approvals on a worker's own tools and on tool.run (PROTOCOL.md §25.6,
 * Part II §A6): a raw worker over /ws/agents and a raw client over /ws, against the real server.
 */
const host = rawWorkerServerPerTest();

function setup(options: Record<string, unknown>): Promise<{ w: TestWorker; client: TestClient; sessionId: string }> {
  return host.workerSession('py-agent', 'Tidy up the workspace', options);
}

/** `echo …` runs; any other shell command is refused. */
const ECHO_ONLY = { rules: [{ tool: 'shell', decision: 'allow', when: { cmd: { startsWith: 'echo ' } } }, { tool: 'shell', decision: 'deny' }] };

describe("remote agents: rules on a worker's own tools", () => {
  it('denies a call by rule: the run is aborted with no call.cleared, and the next run.start ends with the refusal and no call', async () => {
    const { w, client } = await setup({ approve: ECHO_ONLY });
    const first = await w.nthRunStart(1);
    w.step(first.runId, 'c', 'tool_call', '{"cmd":"rm -rf /"}', { tool: 'shell' });
    await w.waitForType('run.abort', (frame) => frame.runId === first.runId);
    const next = await w.nthRunStart(2);
    expect(w.frames.some((frame) => frame.type === 'call.cleared')).toBe(false);
    const [call, refusal] = next.chain.slice(-2);
    expect(call).toMatchObject({ kind: 'tool_call', tool: 'shell', approval: { state: 'rejected', via: 'rule', rule: 1, by: 'policy' } });
    expect(refusal).toMatchObject({
      kind: 'observation',
      tool: 'shell',
      content: "The session's rule 1 (shell: deny) refused this shell call, so it was not run.",
      result: { refused: true, by: 'policy', rule: 1 },
    });
    expect(next.call).toBeUndefined();
    expect(client.frames.some((frame) => frame.type === 'approval.requested')).toBe(false);
    w.step(next.runId, 'f', 'final_answer', 'I left the workspace alone.');
    w.send({ type: 'run.end', runId: next.runId });
  });

  it('clears a call a rule allows, and its step.completed says which rule', async () => {
    const { w, client, sessionId } = await setup({ approve: ECHO_ONLY });
    const run = await w.nthRunStart(1);
    w.step(run.runId, 'c', 'tool_call', '{"cmd":"echo 42"}', { tool: 'shell' });
    const cleared = await w.waitForType('call.cleared');
    const completed = await client.waitForType('step.completed', (frame) => frame.stepId === cleared.stepId);
    expect(completed.approval).toMatchObject({ state: 'approved', via: 'rule', rule: 0, by: 'policy' });
    w.step(run.runId, 'o', 'observation', '42', { tool: 'shell', result: { stdout: '42' } });
    w.step(run.runId, 'f', 'final_answer', '42');
    w.send({ type: 'run.end', runId: run.runId });
    expect((await client.untilFinished(sessionId)).at(-1)).toMatchObject({ status: 'completed' });
  });

  it('resumes a call a rule let through whose worker went away before its observation with why: resumed, not approved', async () => {
    const { w, client, sessionId } = await setup({ approve: ECHO_ONLY });
    const run = await w.nthRunStart(1);
    w.step(run.runId, 'c', 'tool_call', '{"cmd":"echo 42"}', { tool: 'shell' });
    const cleared = await w.waitForType('call.cleared');
    const second = await TestWorker.serving(host.server.baseUrl, 'py-agent');
    host.track(second);
    w.terminate();
    await client.waitForType('session.status', (frame) => frame.status === 'interrupted');
    client.send({ type: 'session.resume', sessionId });
    const resumed = await second.nthRunStart(1);
    expect(resumed.call).toEqual({ stepId: cleared.stepId, tool: 'shell', input: { cmd: 'echo 42' }, why: 'resumed' });
  });

  it('clears a later call of a tool approved with remember, without asking again', async () => {
    const { w, client, sessionId } = await setup({ approve: ['shell'] });
    const first = await w.nthRunStart(1);
    w.step(first.runId, 'c', 'tool_call', '{"cmd":"echo 1"}', { tool: 'shell' });
    const requested = await client.waitForType('approval.requested');
    client.send({ type: 'tool.approve', sessionId, stepId: requested.stepId, remember: 'session' });
    const next = await w.nthRunStart(2);
    expect(next.call).toMatchObject({ stepId: requested.stepId, why: 'approved' });
    w.step(next.runId, 'o', 'observation', '1', { tool: 'shell' });
    w.step(next.runId, 'd', 'tool_call', '{"cmd":"echo 2"}', { tool: 'shell' });
    const cleared = await w.waitForType('call.cleared', (frame) => frame.runId === next.runId);
    const completed = await client.waitForType('step.completed', (frame) => frame.stepId === cleared.stepId);
    expect(completed.approval).toMatchObject({ state: 'approved', via: 'remembered', from: requested.stepId });
    w.step(next.runId, 'p', 'observation', '2', { tool: 'shell' });
    w.step(next.runId, 'f', 'final_answer', 'done');
    w.send({ type: 'run.end', runId: next.runId });
    expect((await client.untilFinished(sessionId)).at(-1)).toMatchObject({ status: 'completed' });
    expect(client.frames.filter((frame) => frame.type === 'approval.requested')).toHaveLength(1);
  });

  it("refuses a tool.run a rule denies with RUN_ABORTED: the server's tool never runs, and the next chain ends with the refusal", async () => {
    const { w } = await setup({ approve: { rules: [{ tool: 'calculator', decision: 'deny' }] } });
    const run = await w.nthRunStart(1);
    w.send({ type: 'tool.run', id: 't1', runId: run.runId, tool: 'calculator', input: { expression: '6*7' } });
    expect(await w.waitForType('error', (frame) => frame.requestId === 't1')).toMatchObject({ code: 'RUN_ABORTED' });
    await w.waitForType('run.abort', (frame) => frame.runId === run.runId);
    const next = await w.nthRunStart(2);
    expect(next.chain.map((step) => step.kind)).toEqual(['tool_call', 'observation']);
    expect(next.chain.at(-1)).toMatchObject({ tool: 'calculator', result: { refused: true, by: 'policy', rule: 0 } });
    expect(next.chain.at(-1)?.content).not.toContain('42');
    expect(next.call).toBeUndefined();
  });
});
