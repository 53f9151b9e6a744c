import { applyEvents, createSessionState, type SessionEvent } from '@interthought/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../support/server.js';
import { TestClient } from '../support/ws-client.js';

// Approvals over the wire: real WebSocket clients against the real server (demo agent).
describe('tool.approve / tool.reject over the wire', () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(() => server.close());

  /** A session whose calculator call waits for approval, its creator, and a second watcher. */
  async function waitingSession(task = 'What is 15% of 240?') {
    const client = await TestClient.connect(server.wsUrl);
    const hello = await client.waitForType('hello');
    expect(hello.capabilities).toContain('approvals');
    const sessionId = await client.createSession(task, { options: { approve: 'all', tokenDelayMs: 0 } });
    const requested = await client.waitForType('approval.requested', (frame) => frame.sessionId === sessionId);
    await client.waitForType('session.status', (frame) => frame.sessionId === sessionId && frame.status === 'waiting');
    const watcher = await TestClient.connect(server.wsUrl);
    watcher.send({ type: 'session.subscribe', sessionId });
    const snapshot = await watcher.waitForType('session.snapshot');
    expect(snapshot.session.status).toBe('waiting');
    expect(snapshot.steps.find((step) => step.stepId === requested.stepId)?.approval).toMatchObject({ state: 'pending' });
    return { client, watcher, sessionId, stepId: requested.stepId, requested };
  }

  it('approve: the requester gets approval.resolved with its requestId, every watcher sees the decision, the run finishes', async () => {
    const { client, watcher, sessionId, stepId, requested } = await waitingSession();
    expect(requested).toMatchObject({ tool: 'calculator', input: { expression: expect.any(String) } });
    const id = client.send({ type: 'tool.approve', sessionId, stepId });
    const answer = await client.answerTo(id);
    expect(answer).toMatchObject({ type: 'approval.resolved', sessionId, stepId, decision: 'approved', requestId: id });
    const seen = await watcher.waitForType('approval.resolved');
    expect(seen).toMatchObject({ stepId, decision: 'approved', seq: (answer as SessionEvent).seq });
    expect(seen).not.toHaveProperty('requestId');
    const events = await client.untilFinished(sessionId);
    const state = applyEvents(createSessionState(), events);
    expect(state.session.status).toBe('completed');
    expect(state.steps.get(stepId)!.approval).toMatchObject({ state: 'approved', by: (await client.waitForType('hello')).connectionId });
    await watcher.untilFinished(sessionId);
    expect(watcher.events(sessionId).at(-1)).toEqual(events.at(-1));
    await Promise.all([client.close(), watcher.close()]);
  });

  it('reject with a reason: a refusal observation, then a final answer; a second decision is refused with the reason', async () => {
    const { client, watcher, sessionId, stepId } = await waitingSession();
    const id = client.send({ type: 'tool.reject', sessionId, stepId, reason: '不要用计算器' });
    expect(await client.answerTo(id)).toMatchObject({ type: 'approval.resolved', decision: 'rejected', reason: '不要用计算器' });
    const late = watcher.send({ type: 'tool.approve', sessionId, stepId });
    const refused = await watcher.answerTo(late);
    expect(refused).toMatchObject({ type: 'error', code: 'APPROVAL_NOT_PENDING', requestId: late });
    expect((refused as { message: string }).message).toContain('already rejected');
    const state = applyEvents(createSessionState(), await client.untilFinished(sessionId));
    const chain = state.chain.map((stepId) => state.steps.get(stepId)!);
    expect(chain.at(-2)).toMatchObject({ kind: 'observation', result: { refused: true, reason: '不要用计算器' } });
    expect(chain.at(-1)!.kind).toBe('final_answer');
    await Promise.all([client.close(), watcher.close()]);
  });

  it('refuses bad decisions with typed errors, and the session goes on waiting', async () => {
    const { client, watcher, sessionId, stepId } = await waitingSession();
    const tooLong = client.send({ type: 'tool.reject', sessionId, stepId, reason: 'x'.repeat(2_001) });
    expect(await client.answerTo(tooLong)).toMatchObject({ type: 'error', code: 'BAD_FRAME' });
    const unknownField = client.send({ type: 'tool.approve', sessionId, stepId, input: '{}' });
    expect(await client.answerTo(unknownField)).toMatchObject({ type: 'error', code: 'BAD_FRAME' });
    const noStep = client.send({ type: 'tool.approve', sessionId, stepId: 'nope' });
    expect(await client.answerTo(noStep)).toMatchObject({ type: 'error', code: 'STEP_NOT_FOUND' });
    const resume = client.send({ type: 'session.resume', sessionId });
    expect(await client.answerTo(resume)).toMatchObject({ type: 'error', code: 'INVALID_STATE', message: expect.stringContaining('approve or reject') });
    const cancel = client.send({ type: 'session.cancel', sessionId });
    expect(await client.answerTo(cancel)).toMatchObject({ type: 'session.status', status: 'cancelled' });
    const after = client.send({ type: 'tool.approve', sessionId, stepId });
    expect(await client.answerTo(after)).toMatchObject({ type: 'error', code: 'SESSION_CANCELLED' });
    await Promise.all([client.close(), watcher.close()]);
  });
});
