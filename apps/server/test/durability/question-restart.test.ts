import type { SessionInfo, SessionSnapshot } from '@interthought/protocol';
import { describe, expect, it } from 'vitest';
import { useDurableScope } from './support/durable-scope.js';
import { startDurableServer, type TempFolder } from './support/durable-server.js';

let folder: TempFolder;
const connect = useDurableScope((made) => (folder = made));

/** The demo agent asks which reading of an ambiguous expression is meant (PROTOCOL.md §25.1). */
const AMBIGUOUS = 'What is half of 3 squared?';

describe('a waiting question across kill -9 and a restart on the same database file', () => {
  it('stays waiting (not interrupted) and answerable: the answer after the restart is used in the final answer', async () => {
    const env = { INTERTHOUGHT_DB: folder.file('sessions.db'), INTERTHOUGHT_TOKEN_DELAY_MS: '0' };
    const first = await startDurableServer(env);
    const creator = await connect(first.wsUrl);
    const sessionId = await creator.client.createSession(AMBIGUOUS);
    const requested = await creator.client.waitForType('input.requested', (frame) => frame.sessionId === sessionId);
    await creator.client.waitForType('session.status', (frame) => frame.sessionId === sessionId && frame.status === 'waiting');
    await first.crash();

    const second = await startDurableServer(env);
    expect(second.stdout()).not.toContain('marked interrupted');
    const listed = (await (await fetch(`${second.url}/api/sessions`)).json()) as { sessions: SessionInfo[] };
    expect(listed.sessions).toEqual([expect.objectContaining({ sessionId, status: 'waiting', detail: expect.stringContaining('Waiting for your answer') })]);
    const snapshot = (await (await fetch(`${second.url}/api/sessions/${sessionId}`)).json()) as SessionSnapshot;
    expect(snapshot.steps.find((step) => step.stepId === requested.stepId)?.question).toMatchObject({ state: 'pending' });

    const answerer = await connect(second.wsUrl);
    await answerer.subscribe(sessionId);
    const choices = (requested as { choices?: string[] }).choices ?? [];
    const squaredFirst = choices.find((choice) => choice.startsWith('(3^2)'));
    expect(squaredFirst).toBeDefined();
    const answer = await answerer.request({ type: 'input.provide', sessionId, stepId: requested.stepId, text: squaredFirst });
    expect(answer).toMatchObject({ type: 'input.resolved', outcome: 'answered', stepId: requested.stepId });
    const events = await answerer.client.untilFinished(sessionId);
    expect(events.at(-1)).toMatchObject({ type: 'session.status', status: 'completed' });
    const answerStep = events.find((event) => event.type === 'step.started' && event.step.kind === 'final_answer');
    const final = events.find((event) => event.type === 'step.completed' && answerStep?.type === 'step.started' && event.stepId === answerStep.step.stepId);
    expect(final).toMatchObject({ content: expect.stringContaining('4.5') });
  });

  it('keeps the question’s deadline across the crash: a restart after it passed closes the question unanswered, and the agent goes on', async () => {
    const env = { INTERTHOUGHT_DB: folder.file('sessions.db'), INTERTHOUGHT_TOKEN_DELAY_MS: '0' };
    const first = await startDurableServer(env);
    const creator = await connect(first.wsUrl);
    const sessionId = await creator.client.createSession(AMBIGUOUS, { options: { inputTimeoutMs: 1_000 } });
    await creator.client.waitForType('session.status', (frame) => frame.sessionId === sessionId && frame.status === 'waiting');
    const requested = await creator.client.waitForType('input.requested', (frame) => frame.sessionId === sessionId);
    await first.crash();
    // The deadline counts from input.requested.at: it passes while no server runs.
    await new Promise((resolve) => setTimeout(resolve, 1_200));

    const second = await startDurableServer(env);
    // The server arms the stored deadline at start, and it has passed: the question closes without anyone asking for the session.
    let snapshot: SessionSnapshot | undefined;
    for (const started = Date.now(); Date.now() - started < 15_000; await new Promise((resolve) => setTimeout(resolve, 100))) {
      snapshot = (await (await fetch(`${second.url}/api/sessions/${sessionId}`)).json()) as SessionSnapshot;
      if (snapshot.session.status === 'completed') break;
    }
    expect(snapshot?.session.status).toBe('completed');
    expect(snapshot?.steps.find((step) => step.stepId === requested.stepId)?.question).toMatchObject({ state: 'timed_out', by: 'server' });
    const unanswered = snapshot?.steps.find((step) => step.kind === 'observation' && step.parentId === requested.stepId);
    expect(unanswered).toMatchObject({ tool: 'ask_user', result: { unanswered: true, reason: 'timed out' } });
  });
});
