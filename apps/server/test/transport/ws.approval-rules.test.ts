import { applyEvents, createSessionState } from '@interthought/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../support/server.js';
import { TestClient } from '../support/ws-client.js';

// Approvals given once and rules over the wire (PROTOCOL.md §25.3, §25.4): real WebSocket clients against the real server (demo agent).
describe('approval rules and remembered approvals over the wire', () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(() => server.close());

  it('refuses bad options.approve rules with BAD_FRAME whose details name the path inside them', async () => {
    const client = await TestClient.connect(server.wsUrl);
    const hello = await client.waitForType('hello');
    expect(hello.capabilities).toContain('approval-rules');
    const id = client.send({ type: 'session.create', task: 'What is 2 + 2?', options: { approve: { rules: [{ tool: 'calculator', decision: 'allow' }, { tool: 'calculator', decision: 'never' }] } } });
    const refused = await client.answerTo(id);
    expect(refused).toMatchObject({ type: 'error', code: 'BAD_FRAME', message: expect.stringContaining('options.approve.rules.1.decision') });
    expect((refused as { details?: unknown }).details).toEqual([{ path: ['options', 'approve', 'rules', 1, 'decision'], message: expect.any(String) }]);
    const empty = client.send({ type: 'session.create', task: 'What is 2 + 2?', options: { approve: { rules: [] } } });
    expect(await client.answerTo(empty)).toMatchObject({ type: 'error', code: 'BAD_FRAME', details: [{ path: ['options', 'approve', 'rules'] }] });
    await client.close();
  });

  it('records the rules a session applies in its options, and a rule-allowed call says so on its step', async () => {
    const client = await TestClient.connect(server.wsUrl);
    const approve = { rules: [{ tool: 'calculator', decision: 'allow', when: { expression: { exists: true } } }], default: 'ask' };
    const sessionId = await client.createSession('What is 12 * 7?', { options: { approve, tokenDelayMs: 0 } });
    const state = applyEvents(createSessionState(), await client.untilFinished(sessionId));
    expect(state.session.status).toBe('completed');
    const call = [...state.steps.values()].find((step) => step.kind === 'tool_call');
    expect(call?.approval).toMatchObject({ state: 'approved', via: 'rule', rule: 0, by: 'policy' });
    const answer = await fetch(`${server.baseUrl}/api/sessions/${sessionId}/export`);
    const header = JSON.parse((await answer.text()).split('\n')[0]!) as { options: { approve: unknown } };
    expect(header.options.approve).toEqual(approve);
    await client.close();
  });

  it('remembers an approval given with remember, and approvals.forget answers approvals.forgotten, then NOT_REMEMBERED', async () => {
    const client = await TestClient.connect(server.wsUrl);
    const { connectionId } = await client.waitForType('hello');
    const sessionId = await client.createSession('What is 15% of 240?', { options: { approve: 'all', tokenDelayMs: 0 } });
    const requested = await client.waitForType('approval.requested', (frame) => frame.sessionId === sessionId);
    const approve = client.send({ type: 'tool.approve', sessionId, stepId: requested.stepId, remember: 'session' });
    expect(await client.answerTo(approve)).toMatchObject({ type: 'approval.resolved', decision: 'approved', remember: 'session', requestId: approve });
    await client.untilFinished(sessionId);
    const forget = client.send({ type: 'approvals.forget', sessionId, tool: 'calculator' });
    expect(await client.answerTo(forget)).toMatchObject({ type: 'approvals.forgotten', sessionId, tools: ['calculator'], by: connectionId, requestId: forget });
    const again = client.send({ type: 'approvals.forget', sessionId });
    expect(await client.answerTo(again)).toMatchObject({ type: 'error', code: 'NOT_REMEMBERED', requestId: again });
    const unknown = client.send({ type: 'approvals.forget', sessionId: 'no-such-session' });
    expect(await client.answerTo(unknown)).toMatchObject({ type: 'error', code: 'SESSION_NOT_FOUND' });
    const tooLong = client.send({ type: 'approvals.forget', sessionId, tool: 'x'.repeat(65) });
    expect(await client.answerTo(tooLong)).toMatchObject({ type: 'error', code: 'BAD_FRAME', details: [{ path: ['tool'] }] });
    await client.close();
  });
});
