import type { SessionEvent, SessionSnapshotData, ShareRecord, Step } from '@interthought/protocol';
import { describe, expect, it } from 'vitest';
import type { TestClient } from '../support/ws-client.js';
import { ADA, ask, rest, waitingSession, wsUrlWith, useUserServer } from './support/users.js';

/*
 * Attribution by person (PROTOCOL.md §21.2): on a server with users, corrections, decisions,
 * messages and links are recorded with the user's id and name, not the connection's id.
 */
describe('attribution to the signed-in user', () => {
  const env = useUserServer();
  const { clients } = env;
  const adaBy = { by: ADA.sub, byName: ADA.name };

  async function connectAda(): Promise<TestClient> {
    return clients.connect(wsUrlWith(env.users.server, { token: await env.users.tokenFor(ADA) }));
  }

  async function stepsOf(sessionId: string): Promise<{ snapshot: SessionSnapshotData; steps: Map<string, Step> }> {
    const answer = await rest(env.users.server, `/api/sessions/${sessionId}`, { bearer: await env.users.tokenFor(ADA) });
    const snapshot = answer.body as SessionSnapshotData;
    return { snapshot, steps: new Map(snapshot.steps.map((step) => [step.stepId, step])) };
  }

  /** The first `session.status` of the session after `seq` whose status is one of `statuses`. */
  function statusAfter(client: TestClient, sessionId: string, statuses: string[], seq: number): Promise<SessionEvent> {
    return client.waitFor(
      (frame) => frame.type === 'session.status' && frame.sessionId === sessionId && statuses.includes(frame.status) && frame.seq > seq,
      `${statuses.join(' or ')} after seq ${seq}`,
    ) as Promise<SessionEvent>;
  }

  it('names Ada on her approval, her correction and her message', async () => {
    const ada = await connectAda();
    const { sessionId, stepId } = await waitingSession(ada);
    const approved = await ask(ada, { type: 'tool.approve', sessionId, stepId });
    expect(approved).toMatchObject({ type: 'approval.resolved', decision: 'approved', ...adaBy });
    const finished = await statusAfter(ada, sessionId, ['completed'], (approved as SessionEvent).seq);

    const answerStep = (await stepsOf(sessionId)).snapshot.chain.at(-1)!;
    const accepted = await ask(ada, { type: 'step.correct', sessionId, stepId: answerStep, content: 'It is 36.', note: 'Say it plainly.' });
    expect(accepted).toMatchObject({ type: 'correction.accepted' });
    const corrected = (await ada.waitForType('step.corrected', (frame) => frame.sessionId === sessionId)) as SessionEvent & { step: Step };
    expect(corrected.step.correction).toMatchObject({ ...adaBy, note: 'Say it plainly.' });
    const correctedRun = await statusAfter(ada, sessionId, ['completed'], finished.seq);

    const message = await ask(ada, { type: 'session.message', sessionId, text: 'Now 25%, please.' });
    expect(message).toMatchObject({ type: 'message.accepted', queued: false });
    // The turn ends in an answer, or waits for approval of another calculator call.
    await statusAfter(ada, sessionId, ['completed', 'waiting'], correctedRun.seq);

    const { steps } = await stepsOf(sessionId);
    expect(steps.get(stepId)!.approval).toMatchObject({ state: 'approved', ...adaBy });
    expect(steps.get((accepted as { newStepId: string }).newStepId)!.correction).toMatchObject(adaBy);
    expect(steps.get((message as { stepId: string }).stepId)).toMatchObject({ kind: 'user_message', ...adaBy });
  });

  it('names Ada on a rejection and on a message queued behind a running turn', async () => {
    const ada = await connectAda();
    // Paced, so the run the rejection starts is still going when the message comes.
    const sessionId = await ada.createSession('What is 15% of 240?', { options: { approve: 'all', tokenDelayMs: 15 } });
    const { stepId } = await ada.waitForType('approval.requested', (frame) => frame.sessionId === sessionId);
    await ada.waitForType('session.status', (frame) => frame.sessionId === sessionId && frame.status === 'waiting');
    const rejected = await ask(ada, { type: 'tool.reject', sessionId, stepId, reason: 'By hand, please.' });
    expect(rejected).toMatchObject({ type: 'approval.resolved', decision: 'rejected', reason: 'By hand, please.', ...adaBy });
    const queued = await ask(ada, { type: 'session.message', sessionId, text: 'Then halve it.', mode: 'queue' });
    expect(queued).toMatchObject({ type: 'message.accepted', queued: true });
    const { stepId: queuedStep } = queued as { stepId: string };
    expect(await ada.waitForType('message.queued', (frame) => frame.sessionId === sessionId)).toMatchObject({ stepId: queuedStep, ...adaBy });
    await ada.waitFor((frame) => frame.type === 'step.started' && frame.sessionId === sessionId && frame.step.stepId === queuedStep, 'the message on the chain');
    const { steps } = await stepsOf(sessionId);
    expect(steps.get(stepId)!.approval).toMatchObject({ state: 'rejected', ...adaBy });
    expect(steps.get(queuedStep)).toMatchObject({ kind: 'user_message', content: 'Then halve it.', ...adaBy });
    await ask(ada, { type: 'session.cancel', sessionId });
  });

  it('names Ada on the links she makes and revokes, over the WebSocket and REST', async () => {
    const ada = await connectAda();
    const { sessionId } = await waitingSession(ada);
    const bearer = await env.users.tokenFor(ADA);
    const made = await rest(env.users.server, `/api/sessions/${sessionId}/shares`, { method: 'POST', bearer, body: { role: 'viewer' } });
    expect(made.status).toBe(201);
    const { shareId } = made.body as { shareId: string };
    const created = (await ada.waitForType('share.created', (frame) => frame.sessionId === sessionId)) as SessionEvent & { share: ShareRecord };
    expect(created.share).toMatchObject({ shareId, ...adaBy });
    expect((await rest(env.users.server, `/api/sessions/${sessionId}/shares/${shareId}`, { method: 'DELETE', bearer })).status).toBe(204);
    expect(await ada.waitForType('share.revoked', (frame) => frame.sessionId === sessionId)).toMatchObject({ shareId, ...adaBy });
    await ask(ada, { type: 'session.cancel', sessionId });
  });
});
