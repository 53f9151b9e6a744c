import { describe, expect, it } from 'vitest';
import type { SessionEvent } from '@interthought/protocol';
import { TestClient } from '../../support/ws-client.js';
import { TestWorker } from './worker-client.js';
import { rawWorkerServerPerTest } from './worker-server-per-test.js';

const host = rawWorkerServerPerTest();

function setup(options: Record<string, unknown> = {}): Promise<{ w: TestWorker; client: TestClient; sessionId: string }> {
  return host.workerSession('py-agent', 'Compute 6*7 and write it down', options);
}

function stepIdOf(events: readonly SessionEvent[], content: string): string {
  const completed = events.find((event) => event.type === 'step.completed' && event.content === content);
  if (completed === undefined || completed.type !== 'step.completed') throw new Error(`no completed step "${content}"`);
  return completed.stepId;
}

describe('remote agents: corrections', () => {
  it('aborts the run on a correction over /ws, and the next run.start carries the corrected chain with the note', async () => {
    const { w, client, sessionId } = await setup();
    const first = await w.nthRunStart(1);
    w.step(first.runId, 'a', 'thought', 'I will multiply 6 by 7.');
    w.send({ type: 'step.start', runId: first.runId, ref: 'b', kind: 'thought' });
    w.send({ type: 'step.delta', runId: first.runId, ref: 'b', text: 'Still thinking' });
    await client.waitFor((frame) => frame.type === 'step.delta' && frame.text === 'Still thinking');
    const stepId = stepIdOf(client.events(sessionId), 'I will multiply 6 by 7.');
    client.send({ type: 'step.correct', sessionId, stepId, content: 'I will multiply 6 by 8.', note: 'the task says 6*8' });
    const abort = await w.waitForType('run.abort', (frame) => frame.runId === first.runId);
    expect(abort.reason).toMatch(/correct/iu);
    const second = await w.nthRunStart(2);
    expect(second.runId).not.toBe(first.runId);
    expect(second.chain).toHaveLength(1);
    expect(second.chain[0]).toMatchObject({ kind: 'thought', status: 'corrected', content: 'I will multiply 6 by 8.', correctionOf: stepId, correction: { note: 'the task says 6*8' } });
    expect(second.call).toBeUndefined();
    // Frames of the aborted run still in flight are ignored without an error.
    w.send({ type: 'step.delta', runId: first.runId, ref: 'b', text: 'late' });
    w.step(second.runId, 'f', 'final_answer', '48');
    w.send({ type: 'run.end', runId: second.runId });
    const events = await client.untilFinished(sessionId);
    expect(events.at(-1)).toMatchObject({ status: 'completed' });
    expect(w.frames.some((frame) => frame.type === 'error')).toBe(false);
  });
});

describe("remote agents: approvals of a worker's own tool calls", () => {
  /** A run that ends a `shell` call, which the session's policy makes wait. */
  async function waitingCall(): Promise<{ w: TestWorker; client: TestClient; sessionId: string; callId: string; firstRunId: string }> {
    const { w, client, sessionId } = await setup({ approve: ['shell'] });
    const first = await w.nthRunStart(1);
    w.step(first.runId, 'c', 'tool_call', '{"cmd":"echo 42"}', { tool: 'shell' });
    await w.waitForType('run.abort', (frame) => frame.runId === first.runId);
    expect(w.frames.some((frame) => frame.type === 'call.cleared')).toBe(false);
    const requested = await client.waitForType('approval.requested');
    return { w, client, sessionId, callId: requested.stepId, firstRunId: first.runId };
  }

  it('clears a call the policy lets through: call.cleared, then the worker writes the observation', async () => {
    const { w, client, sessionId } = await setup({ approve: 'none' });
    const run = await w.nthRunStart(1);
    w.step(run.runId, 'c', 'tool_call', '{"cmd":"echo 42"}', { tool: 'shell' });
    const cleared = await w.waitForType('call.cleared');
    expect(cleared).toMatchObject({ runId: run.runId, ref: 'c', stepId: expect.any(String) });
    w.step(run.runId, 'o', 'observation', '42', { tool: 'shell', result: { stdout: '42' } });
    w.step(run.runId, 'f', 'final_answer', '42');
    w.send({ type: 'run.end', runId: run.runId });
    expect((await client.untilFinished(sessionId)).at(-1)).toMatchObject({ status: 'completed' });
  });

  it('approve: the run is aborted before the tool runs, and the next run.start carries the approved call', async () => {
    const { w, client, sessionId, callId } = await waitingCall();
    client.send({ type: 'tool.approve', sessionId, stepId: callId });
    const next = await w.nthRunStart(2);
    expect(next.chain.at(-1)).toMatchObject({ stepId: callId, kind: 'tool_call', approval: { state: 'approved' } });
    expect(next.call).toEqual({ stepId: callId, tool: 'shell', input: { cmd: 'echo 42' }, why: 'approved' });
  });

  it('edit: the next run.start carries the edited input', async () => {
    const { w, client, sessionId, callId } = await waitingCall();
    client.send({ type: 'step.correct', sessionId, stepId: callId, content: '{"cmd":"echo 48"}' });
    const next = await w.nthRunStart(2);
    const head = next.chain.at(-1);
    expect(head).toMatchObject({ kind: 'tool_call', status: 'corrected', content: '{"cmd":"echo 48"}', approval: { state: 'edited' } });
    expect(next.call).toEqual({ stepId: head?.stepId, tool: 'shell', input: { cmd: 'echo 48' }, why: 'edited' });
  });

  it('reject: the next run.start ends with the refusal observation and no call to run', async () => {
    const { w, client, sessionId, callId } = await waitingCall();
    client.send({ type: 'tool.reject', sessionId, stepId: callId, reason: 'not on my machine' });
    const next = await w.nthRunStart(2);
    expect(next.chain.at(-1)).toMatchObject({ kind: 'observation', tool: 'shell', result: { refused: true, reason: 'not on my machine' } });
    expect(next.call).toBeUndefined();
  });
});

describe('remote agents: server-side tools', () => {
  it('runs a built-in tool for the worker: the server writes the tool_call and observation steps and answers tool.result', async () => {
    const { w, client, sessionId } = await setup();
    const run = await w.nthRunStart(1);
    w.step(run.runId, 'a', 'thought', 'Let me compute.');
    w.send({ type: 'tool.run', id: 't1', runId: run.runId, tool: 'calculator', input: { expression: '6*7' } });
    const result = await w.waitForType('tool.result');
    expect(result).toMatchObject({ requestId: 't1', runId: run.runId, tool: 'calculator', ok: true, text: expect.stringContaining('42') });
    w.send({ type: 'tool.run', id: 't2', runId: run.runId, tool: 'no_such_tool', input: {} });
    expect(await w.waitForType('error', (frame) => frame.requestId === 't2')).toMatchObject({ code: 'TOOL_NOT_FOUND' });
    w.send({ type: 'tool.run', id: 't3', runId: run.runId, tool: 'calculator', input: { nope: 1 } });
    expect(await w.waitForType('error', (frame) => frame.requestId === 't3')).toMatchObject({ code: 'BAD_TOOL_INPUT', details: expect.any(Array) });
    w.step(run.runId, 'f', 'final_answer', '42');
    w.send({ type: 'run.end', runId: run.runId });
    const events = await client.untilFinished(sessionId);
    const started = events.filter((event) => event.type === 'step.started').map((event) => event.type === 'step.started' && [event.step.kind, event.step.tool]);
    expect(started).toEqual([['thought', undefined], ['tool_call', 'calculator'], ['observation', 'calculator'], ['final_answer', undefined]]);
    expect(events.find((event) => event.type === 'step.completed' && event.stepId === result.callStepId)).toMatchObject({ content: '{"expression":"6*7"}' });
  });

  it('runs an approved server-tool call itself before the next run.start, whose chain ends with the observation', async () => {
    const { w, client, sessionId } = await setup({ approve: ['calculator'] });
    const run = await w.nthRunStart(1);
    w.send({ type: 'tool.run', id: 't1', runId: run.runId, tool: 'calculator', input: { expression: '6*7' } });
    expect(await w.waitForType('error', (frame) => frame.requestId === 't1')).toMatchObject({ code: 'RUN_ABORTED' });
    await w.waitForType('run.abort');
    const requested = await client.waitForType('approval.requested');
    client.send({ type: 'tool.approve', sessionId, stepId: requested.stepId });
    const next = await w.nthRunStart(2);
    expect(next.chain.at(-1)).toMatchObject({ kind: 'observation', tool: 'calculator', content: expect.stringContaining('42') });
    expect(next.call).toBeUndefined();
  });
});
