import { FIELD_LIMITS, chainSteps } from '@interthought/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../support/server.js';
import { expectCompleteStream, foldEvents } from '../support/session-stream.js';
import { TestClient } from '../support/ws-client.js';

describe('step.correct over the wire', () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(() => server.close());

  /** A finished session and the client that created it. */
  async function finishedSession(task: string) {
    const client = await TestClient.connect(server.wsUrl);
    const sessionId = await client.createSession(task);
    const state = expectCompleteStream(sessionId, await client.untilFinished(sessionId));
    return { client, sessionId, state };
  }

  it('accepts a correction before its events, invalidates the old chain and regenerates from the new step', async () => {
    const { client, sessionId, state } = await finishedSession('What is 6 * 7?');
    const oldChain = [...state.chain];
    const target = chainSteps(state)[0];
    if (!target) throw new Error('the session has no steps');
    const watcher = await TestClient.connect(server.wsUrl);
    watcher.send({ type: 'session.subscribe', sessionId, afterSeq: state.seq });
    await watcher.waitForType('session.subscribed');

    const id = client.send({ type: 'step.correct', sessionId, stepId: target.stepId, content: 'I should double-check with the calculator.', note: 'be careful', baseRevision: 0 });
    const accepted = await client.answerTo(id);
    expect(accepted).toMatchObject({ type: 'correction.accepted', sessionId, stepId: target.stepId, revision: 1 });
    if (accepted.type !== 'correction.accepted') throw new Error('not accepted');

    const corrected = await client.waitForType('step.corrected', (frame) => frame.sessionId === sessionId);
    expect(client.frames.indexOf(accepted)).toBeLessThan(client.frames.indexOf(corrected));
    expect(corrected.step).toMatchObject({ stepId: accepted.newStepId, status: 'corrected', correctionOf: target.stepId, content: 'I should double-check with the calculator.' });
    const invalidated = await client.waitForType('steps.invalidated', (frame) => frame.sessionId === sessionId);
    expect(invalidated).toMatchObject({ stepIds: oldChain, byStepId: accepted.newStepId, revision: 1 });

    const done = await client.waitForType('session.status', (frame) => frame.sessionId === sessionId && frame.status === 'completed' && frame.seq > corrected.seq);
    const all = client.events(sessionId).filter((event) => event.seq <= done.seq);
    const after = foldEvents(sessionId, all);
    expect(after.session.revision).toBe(1);
    expect(after.chain[0]).toBe(accepted.newStepId);
    expect(chainSteps(after).at(-1)?.kind).toBe('final_answer');
    for (const stepId of oldChain) expect(after.steps.get(stepId)?.status).toBe('invalidated');

    const seenByWatcher = await watcher.waitForType('session.status', (frame) => frame.status === 'completed' && frame.seq === done.seq);
    expect(seenByWatcher.seq).toBe(done.seq);
    expect(watcher.events(sessionId)).toEqual(all.slice(state.seq));
    await Promise.all([client.close(), watcher.close()]);
  });

  it('refuses a correction of an invalidated step, and the connection carries on', async () => {
    const { client, sessionId, state } = await finishedSession('What is 8 + 5?');
    const target = chainSteps(state)[0];
    if (!target) throw new Error('the session has no steps');
    const first = client.send({ type: 'step.correct', sessionId, stepId: target.stepId, content: 'A different start.' });
    expect(await client.answerTo(first)).toMatchObject({ type: 'correction.accepted' });
    const second = client.send({ type: 'step.correct', sessionId, stepId: target.stepId, content: 'Yet another start.' });
    expect(await client.answerTo(second)).toMatchObject({ type: 'error', code: 'STEP_INVALIDATED', requestId: second });
    await client.waitFor((frame) => frame.type === 'session.status' && frame.status === 'completed' && frame.seq > state.seq, 'the regeneration');
    await client.close();
  });

  it('refuses an unknown step with STEP_NOT_FOUND', async () => {
    const { client, sessionId } = await finishedSession('What is 1 + 1?');
    const id = client.send({ type: 'step.correct', sessionId, stepId: 'no-such-step', content: 'x' });
    expect(await client.answerTo(id)).toMatchObject({ type: 'error', code: 'STEP_NOT_FOUND', requestId: id });
    await client.close();
  });

  it('refuses a stale baseRevision for a step that left the chain', async () => {
    const { client, sessionId, state } = await finishedSession('What is 10 - 3?');
    const [first, second] = chainSteps(state);
    if (!first || !second) throw new Error('the session needs two steps');
    const accepted = client.send({ type: 'step.correct', sessionId, stepId: first.stepId, content: 'Start over.' });
    await client.answerTo(accepted);
    const stale = client.send({ type: 'step.correct', sessionId, stepId: second.stepId, content: 'Edit on an old view.', baseRevision: 0 });
    expect(await client.answerTo(stale)).toMatchObject({ type: 'error', code: 'STALE_REVISION', requestId: stale });
    await client.close();
  });

  it('refuses a correction longer than the contract allows with BAD_FRAME naming content', async () => {
    const { client, sessionId, state } = await finishedSession('What is 2 + 2?');
    const target = chainSteps(state)[0];
    if (!target) throw new Error('the session has no steps');
    const id = client.send({ type: 'step.correct', sessionId, stepId: target.stepId, content: 'x'.repeat(FIELD_LIMITS.correctionMax + 1) });
    const answer = await client.answerTo(id);
    expect(answer).toMatchObject({ type: 'error', code: 'BAD_FRAME', requestId: id });
    expect(answer.type === 'error' ? answer.details?.map((detail) => detail.path) : []).toEqual([['content']]);
    const ok = client.send({ type: 'step.correct', sessionId, stepId: target.stepId, content: 'x'.repeat(FIELD_LIMITS.correctionMax) });
    expect(await client.answerTo(ok)).toMatchObject({ type: 'correction.accepted' });
    await client.close();
  });
});
