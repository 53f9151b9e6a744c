import { shareActor, type SessionEvent, type SessionSnapshotData, type Step } from '@interthought/protocol';
import { describe, expect, it } from 'vitest';
import type { TestClient } from '../support/ws-client.js';
import { ADA, ask, finishedSession, refusal, rest, shareLink, waitingSession, wsUrlWith, useUserServer } from './support/users.js';

/*
 * What each role of a link may do (PROTOCOL.md §21.2): a viewer watches and reads only; an editor
 * also corrects, messages, decides, pauses, resumes and cancels, but never deletes or shares.
 */
describe('share link roles', () => {
  const env = useUserServer();
  const { clients } = env;

  async function connectAda(): Promise<TestClient> {
    return clients.connect(wsUrlWith(env.users.server, { token: await env.users.tokenFor(ADA) }));
  }

  async function snapshotAsAda(sessionId: string): Promise<SessionSnapshotData> {
    const answer = await rest(env.users.server, `/api/sessions/${sessionId}`, { bearer: await env.users.tokenFor(ADA) });
    expect(answer.status).toBe(200);
    return answer.body as SessionSnapshotData;
  }

  it('refuses a viewer every request that would change the session, with FORBIDDEN, and nothing changes', async () => {
    const ada = await connectAda();
    const { sessionId, stepId } = await waitingSession(ada);
    const other = await shareLink(ada, sessionId, 'editor');
    const { token } = await shareLink(ada, sessionId, 'viewer');
    const before = await snapshotAsAda(sessionId);
    const viewer = await clients.connect(wsUrlWith(env.users.server, { share: token }));
    expect(await ask(viewer, { type: 'session.subscribe', sessionId })).toMatchObject({ type: 'session.snapshot', session: { status: 'waiting' } });

    const requests: Record<string, unknown>[] = [
      { type: 'step.correct', sessionId, stepId, content: '{"expression":"240 * 0.5"}' },
      { type: 'session.message', sessionId, text: 'Use 50% instead.' },
      { type: 'tool.approve', sessionId, stepId },
      { type: 'tool.reject', sessionId, stepId, reason: 'No.' },
      { type: 'approvals.forget', sessionId },
      // Answering a question is steering, as deciding is (PROTOCOL.md §25.2).
      { type: 'input.provide', sessionId, stepId, text: 'The 20.' },
      { type: 'session.pause', sessionId },
      { type: 'session.resume', sessionId },
      { type: 'session.cancel', sessionId },
      { type: 'session.delete', sessionId },
      { type: 'session.share', sessionId, role: 'editor' },
      { type: 'session.unshare', sessionId, shareId: other.shareId },
    ];
    for (const request of requests) {
      const message = await refusal(viewer, request, 'FORBIDDEN');
      expect(message, String(request.type)).toMatch(/viewer \(read-only\)/);
    }
    const calls: [string, string, unknown?][] = [
      ['DELETE', ''],
      ['GET', '/shares'],
      ['POST', '/shares', { role: 'editor' }],
      ['DELETE', `/shares/${other.shareId}`],
    ];
    for (const [method, tail, body] of calls) {
      const answer = await rest(env.users.server, `/api/sessions/${sessionId}${tail}`, { method, share: token, body });
      expect(answer, `${method} ${tail}`).toMatchObject({ status: 403, body: { code: 'FORBIDDEN' } });
    }
    expect(await snapshotAsAda(sessionId)).toEqual(before);
    expect(viewer.events(sessionId)).toEqual([]);
  });

  it('lets an editor decide, correct and message, each attributed to its link; delete, share and unshare are FORBIDDEN', async () => {
    const ada = await connectAda();
    const { sessionId, stepId } = await waitingSession(ada);
    const viewerLink = await shareLink(ada, sessionId, 'viewer');
    const { token, shareId } = await shareLink(ada, sessionId, 'editor');
    const editor = await clients.connect(wsUrlWith(env.users.server, { share: token }));
    await editor.waitForType('hello');
    const connectionId = shareActor(shareId);
    expect(await ask(editor, { type: 'session.subscribe', sessionId })).toMatchObject({ type: 'session.snapshot' });

    // Without a sign-in of its own, a link's holder is named by its link (PROTOCOL.md §21.2).
    expect(await ask(editor, { type: 'tool.approve', sessionId, stepId })).toMatchObject({ type: 'approval.resolved', decision: 'approved', by: connectionId });
    const afterApproval = await editor.untilFinished(sessionId);
    const answerStep = (await snapshotAsAda(sessionId)).chain.at(-1)!;
    const corrected = await ask(editor, { type: 'step.correct', sessionId, stepId: answerStep, content: '15% of 240 is 36.', note: 'Shorter.' });
    expect(corrected).toMatchObject({ type: 'correction.accepted', sessionId, stepId: answerStep });
    const { newStepId } = corrected as { newStepId: string };
    const completedAfter = (seq: number) =>
      editor.waitFor((frame) => frame.type === 'session.status' && frame.sessionId === sessionId && frame.status === 'completed' && frame.seq > seq, `completed after seq ${seq}`);
    const correctedRun = (await completedAfter(afterApproval.at(-1)!.seq)) as SessionEvent;
    const message = await ask(editor, { type: 'session.message', sessionId, text: 'And 20%?' });
    expect(message).toMatchObject({ type: 'message.accepted', sessionId, queued: false });
    const messageStep = (message as { stepId: string }).stepId;
    // The new turn's calculator call waits for approval again (approve: 'all').
    await editor.waitFor((frame) => frame.type === 'session.status' && frame.sessionId === sessionId && frame.status === 'waiting' && frame.seq > correctedRun.seq, 'the new turn');

    const snapshot = await snapshotAsAda(sessionId);
    const steps = new Map<string, Step>(snapshot.steps.map((step) => [step.stepId, step]));
    expect(steps.get(stepId)!.approval).toMatchObject({ state: 'approved', by: connectionId });
    expect(steps.get(stepId)!.approval!.byName).toBeUndefined();
    expect(steps.get(newStepId)!.correction).toMatchObject({ by: connectionId, note: 'Shorter.' });
    expect(steps.get(messageStep)).toMatchObject({ kind: 'user_message', content: 'And 20%?', by: connectionId });

    for (const request of [
      { type: 'session.delete', sessionId },
      { type: 'session.share', sessionId, role: 'viewer' },
      { type: 'session.unshare', sessionId, shareId: viewerLink.shareId },
    ]) {
      expect(await refusal(editor, request, 'FORBIDDEN'), request.type).toMatch(/an editor/);
    }
    expect(await rest(env.users.server, `/api/sessions/${sessionId}`, { method: 'DELETE', share: token })).toMatchObject({ status: 403, body: { code: 'FORBIDDEN' } });
    expect(await rest(env.users.server, `/api/sessions/${sessionId}/shares`, { method: 'POST', share: token, body: { role: 'editor' } })).toMatchObject({ status: 403 });
    expect((await snapshotAsAda(sessionId)).shares).toHaveLength(2);
  });

  it('lets an editor pause, resume and cancel a running session', async () => {
    const ada = await connectAda();
    // Paced, so the run is still going when the editor acts.
    const sessionId = await ada.createSession('What is 15% of 240, then times 3?', { options: { tokenDelayMs: 30 } });
    const { token } = await shareLink(ada, sessionId, 'editor');
    const editor = await clients.connect(wsUrlWith(env.users.server, { share: token }));
    expect(await ask(editor, { type: 'session.pause', sessionId })).toMatchObject({ type: 'session.status', status: 'paused' });
    expect(await ask(editor, { type: 'session.resume', sessionId })).toMatchObject({ type: 'session.status', status: 'running' });
    expect(await ask(editor, { type: 'session.cancel', sessionId })).toMatchObject({ type: 'session.status', status: 'cancelled' });
    await ada.waitForType('session.status', (frame) => frame.sessionId === sessionId && frame.status === 'cancelled');
  });

  it('keeps a viewer watching live as the owner works', async () => {
    const ada = await connectAda();
    const sessionId = await finishedSession(ada);
    const { token } = await shareLink(ada, sessionId, 'viewer');
    const viewer = await clients.connect(wsUrlWith(env.users.server, { share: token }));
    await ask(viewer, { type: 'session.subscribe', sessionId });
    const message = await ask(ada, { type: 'session.message', sessionId, text: 'Now add 9.' });
    expect(message).toMatchObject({ type: 'message.accepted' });
    const seen = await viewer.untilFinished(sessionId);
    const messageStep = (message as { stepId: string }).stepId;
    expect(seen.some((event) => 'stepId' in event && event.stepId === messageStep)).toBe(true);
  });
});
