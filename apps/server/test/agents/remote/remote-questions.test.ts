import { describe, expect, it } from 'vitest';
import { ASK_USER_TOOL } from '@interthought/protocol';
import { TestClient } from '../../support/ws-client.js';
import { TestWorker } from './worker-client.js';
import { rawWorkerServerPerTest } from './worker-server-per-test.js';

// A raw-ws worker asks the user (PROTOCOL.md §25.6, Part II §A6.3): with `tool.run` of the server's
// `ask_user`, or by writing its own `tool_call` step of it. Either way the run is aborted, the
// session waits, and the answer ends the next `run.start`'s chain.
const host = rawWorkerServerPerTest();

const QUESTION = { question: 'Which city?', choices: ['Paris', 'Lyon'] };

function setup(options: Record<string, unknown> = {}): Promise<{ w: TestWorker; client: TestClient; sessionId: string }> {
  return host.workerSession('py-asker', 'Plan a trip', options);
}

/** Answer the question the session asked and return the next run.start. */
async function answer(w: TestWorker, client: TestClient, sessionId: string, text: string) {
  const requested = await client.waitForType('input.requested');
  expect(requested).toMatchObject({ sessionId, question: QUESTION.question, choices: QUESTION.choices });
  await client.waitFor((frame) => frame.type === 'session.status' && frame.sessionId === sessionId && frame.status === 'waiting', 'the session to wait');
  const id = client.send({ type: 'input.provide', sessionId, stepId: requested.stepId, text });
  expect(await client.answerTo(id)).toMatchObject({ type: 'input.resolved', outcome: 'answered', stepId: requested.stepId });
  return { stepId: requested.stepId, next: await w.nthRunStart(2) };
}

describe('remote agents: asking the user', () => {
  it('tool.run of ask_user: RUN_ABORTED answers it, then run.abort; the answer ends the next run.start chain', async () => {
    const { w, client, sessionId } = await setup();
    const first = await w.nthRunStart(1);
    w.step(first.runId, 'a', 'thought', 'I need the city.');
    w.send({ type: 'tool.run', id: 'q1', runId: first.runId, tool: ASK_USER_TOOL, input: QUESTION });
    const refused = await w.waitForType('error', (frame) => frame.requestId === 'q1');
    expect(refused).toMatchObject({ code: 'RUN_ABORTED', runId: first.runId, message: expect.stringMatching(/asks the user/u) });
    const abort = await w.waitForType('run.abort', (frame) => frame.runId === first.runId);
    // The answer to the tool.run comes first, then the abort (PROTOCOL.md §25.6).
    expect(w.frames.indexOf(refused)).toBeLessThan(w.frames.indexOf(abort));
    expect(w.frames.some((frame) => frame.type === 'tool.result')).toBe(false);

    const { stepId, next } = await answer(w, client, sessionId, 'Lyon');
    expect(next.runId).not.toBe(first.runId);
    expect(next.call).toBeUndefined();
    expect(next.chain.map((step) => [step.kind, step.tool])).toEqual([
      ['thought', undefined],
      ['tool_call', ASK_USER_TOOL],
      ['observation', ASK_USER_TOOL],
    ]);
    expect(next.chain[1]).toMatchObject({ stepId, content: JSON.stringify(QUESTION), question: { state: 'answered' } });
    expect(next.chain[2]).toMatchObject({ content: 'Lyon', result: { answer: 'Lyon', choice: 1 } });

    w.step(next.runId, 'f', 'final_answer', 'Off to Lyon.');
    w.send({ type: 'run.end', runId: next.runId });
    expect((await client.untilFinished(sessionId)).at(-1)).toMatchObject({ status: 'completed' });
    expect(w.frames.filter((frame) => frame.type === 'error')).toHaveLength(1);
  });

  it('its own tool_call step of ask_user: run.abort instead of call.cleared; the answer ends the next run.start chain', async () => {
    const { w, client, sessionId } = await setup();
    const first = await w.nthRunStart(1);
    w.step(first.runId, 'q', 'tool_call', JSON.stringify(QUESTION), { tool: ASK_USER_TOOL });
    await w.waitForType('run.abort', (frame) => frame.runId === first.runId);
    expect(w.frames.some((frame) => frame.type === 'call.cleared')).toBe(false);

    const { stepId, next } = await answer(w, client, sessionId, 'Somewhere warm');
    expect(next.call).toBeUndefined();
    expect(next.chain.at(-2)).toMatchObject({ stepId, kind: 'tool_call', tool: ASK_USER_TOOL });
    expect(next.chain.at(-1)).toMatchObject({ kind: 'observation', tool: ASK_USER_TOOL, content: 'Somewhere warm', result: { answer: 'Somewhere warm' } });
    expect((next.chain.at(-1)!.result as { choice?: number }).choice).toBeUndefined();
    w.step(next.runId, 'f', 'final_answer', 'Somewhere warm it is.');
    w.send({ type: 'run.end', runId: next.runId });
    expect((await client.untilFinished(sessionId)).at(-1)).toMatchObject({ status: 'completed' });
    expect(w.frames.some((frame) => frame.type === 'error')).toBe(false);
  });

  it('a question never waits for approval, whatever the policy', async () => {
    const { w, client, sessionId } = await setup({ approve: 'all' });
    const first = await w.nthRunStart(1);
    w.send({ type: 'tool.run', id: 'q1', runId: first.runId, tool: ASK_USER_TOOL, input: QUESTION });
    await w.waitForType('error', (frame) => frame.requestId === 'q1' && frame.code === 'RUN_ABORTED');
    await answer(w, client, sessionId, 'Paris');
    expect(client.events(sessionId).some((event) => event.type === 'approval.requested')).toBe(false);
  });

  it('its own ask_user step with input that is no question: an Error observation and BAD_TOOL_INPUT naming it, no call.cleared; the run goes on', async () => {
    const { w, client, sessionId } = await setup();
    const first = await w.nthRunStart(1);
    w.step(first.runId, 'q', 'tool_call', '{"question":""}', { tool: ASK_USER_TOOL });
    const refused = await w.waitForType('error', (frame) => frame.ref === 'q');
    expect(refused).toMatchObject({ code: 'BAD_TOOL_INPUT', runId: first.runId, message: expect.stringContaining('asks nothing'), details: expect.any(Array) });
    expect(w.frames.some((frame) => frame.type === 'call.cleared' || frame.type === 'run.abort')).toBe(false);
    w.step(first.runId, 'f', 'final_answer', 'I will not ask, then.');
    w.send({ type: 'run.end', runId: first.runId });
    const events = await client.untilFinished(sessionId);
    expect(events.at(-1)).toMatchObject({ status: 'completed' });
    expect(events.some((event) => event.type === 'input.requested')).toBe(false);
    const snapshot = (await host.server.app.sessions.snapshot(sessionId))!;
    const chain = snapshot.chain.map((id) => snapshot.steps.find((step) => step.stepId === id)!);
    expect(chain.map((step) => [step.kind, step.tool])).toEqual([
      ['tool_call', ASK_USER_TOOL],
      ['observation', ASK_USER_TOOL],
      ['final_answer', undefined],
    ]);
    expect(chain[1]).toMatchObject({ content: expect.stringMatching(/^Error: Invalid input for ask_user: question: /u), result: { error: expect.any(String) } });
  });

  it('tool.run of ask_user with input that is no question: BAD_TOOL_INPUT, no step, and the run goes on', async () => {
    const { w, client, sessionId } = await setup();
    const first = await w.nthRunStart(1);
    w.send({ type: 'tool.run', id: 'q1', runId: first.runId, tool: ASK_USER_TOOL, input: { question: '', choices: ['a', 'a'] } });
    expect(await w.waitForType('error', (frame) => frame.requestId === 'q1')).toMatchObject({ code: 'BAD_TOOL_INPUT', details: expect.any(Array) });
    w.step(first.runId, 'f', 'final_answer', 'I will not ask, then.');
    w.send({ type: 'run.end', runId: first.runId });
    const events = await client.untilFinished(sessionId);
    expect(events.at(-1)).toMatchObject({ status: 'completed' });
    expect(events.some((event) => event.type === 'input.requested')).toBe(false);
    expect(w.frames.some((frame) => frame.type === 'run.abort')).toBe(false);
  });
});
