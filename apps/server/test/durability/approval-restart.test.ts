import type { SessionInfo, SessionSnapshot } from '@interthought/protocol';
import { describe, expect, it } from 'vitest';
import { useDurableScope } from './support/durable-scope.js';
import { startDurableServer, type TempFolder } from './support/durable-server.js';

let folder: TempFolder;
const connect = useDurableScope((made) => (folder = made));

describe('a pending approval across kill -9 and a restart on the same database file', () => {
  it('stays pending (not interrupted), and approving it after the restart finishes the run', async () => {
    // The server's default policy (INTERTHOUGHT_APPROVE) applies to a session created without one.
    const env = { INTERTHOUGHT_DB: folder.file('sessions.db'), INTERTHOUGHT_TOKEN_DELAY_MS: '0', INTERTHOUGHT_APPROVE: 'calculator' };
    const first = await startDurableServer(env);
    const creator = await connect(first.wsUrl);
    const sessionId = await creator.client.createSession('What is 12 * 7?');
    const requested = await creator.client.waitForType('approval.requested', (frame) => frame.sessionId === sessionId);
    await creator.client.waitForType('session.status', (frame) => frame.sessionId === sessionId && frame.status === 'waiting');
    await first.crash();

    const second = await startDurableServer(env);
    expect(second.stdout()).not.toContain('marked interrupted');
    const listed = (await (await fetch(`${second.url}/api/sessions`)).json()) as { sessions: SessionInfo[] };
    expect(listed.sessions).toEqual([expect.objectContaining({ sessionId, status: 'waiting', detail: 'Waiting for approval: calculator' })]);
    const snapshot = (await (await fetch(`${second.url}/api/sessions/${sessionId}`)).json()) as SessionSnapshot;
    expect(snapshot.steps.find((step) => step.stepId === requested.stepId)?.approval).toMatchObject({ state: 'pending' });

    const decider = await connect(second.wsUrl);
    await decider.subscribe(sessionId);
    const answer = await decider.request({ type: 'tool.approve', sessionId, stepId: requested.stepId });
    expect(answer).toMatchObject({ type: 'approval.resolved', decision: 'approved' });
    const events = await decider.client.untilFinished(sessionId);
    expect(events.at(-1)).toMatchObject({ type: 'session.status', status: 'completed' });
    const answerStep = events.find((event) => event.type === 'step.started' && event.step.kind === 'final_answer');
    expect(answerStep).toBeDefined();
    const final = events.find((event) => event.type === 'step.completed' && answerStep?.type === 'step.started' && event.stepId === answerStep.step.stepId);
    expect(final).toMatchObject({ content: expect.stringContaining('84') });
  });
});
