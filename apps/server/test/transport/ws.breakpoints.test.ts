import { applyEvents, createSessionState, pausedAtBreakpoint, type SessionEvent } from '@interthought/protocol';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../support/server.js';
import { TestClient } from '../support/ws-client.js';

// Breakpoints over the wire (PROTOCOL.md §25.5): real WebSocket clients against the real server (demo agent).
describe('options.breakpoints over the wire', () => {
  let server: RunningServer;
  const clients: TestClient[] = [];
  beforeAll(async () => {
    server = await startServer();
  });
  afterEach(async () => {
    for (const client of clients.splice(0)) await client.close();
  });
  afterAll(() => server.close());

  async function connect(): Promise<TestClient> {
    const client = await TestClient.connect(server.wsUrl);
    clients.push(client);
    return client;
  }

  it('stops before calculator: a watcher sees breakpoint.hit, then paused; its snapshot folds to the stop; session.resume from it runs the tool to the answer', async () => {
    const client = await connect();
    expect((await client.waitForType('hello')).capabilities).toContain('breakpoints');
    const sessionId = await client.createSession('What is 15% of 240?', { options: { tokenDelayMs: 0, breakpoints: [{ kind: 'tool_call', tool: 'calc*' }] } });
    const hit = await client.waitForType('breakpoint.hit', (frame) => frame.sessionId === sessionId);
    expect(hit).toMatchObject({ breakpoint: { kind: 'tool_call', tool: 'calc*' }, index: 0 });
    const paused = await client.waitForType('session.status', (frame) => frame.sessionId === sessionId && frame.status === 'paused');
    expect(paused).toMatchObject({ seq: hit.seq + 1, detail: 'Stopped at a breakpoint: before calculator runs' });

    const watcher = await connect();
    watcher.send({ type: 'session.subscribe', sessionId });
    const snapshot = await watcher.waitForType('session.snapshot');
    expect(snapshot.session).toMatchObject({ status: 'paused', detail: 'Stopped at a breakpoint: before calculator runs' });
    expect(pausedAtBreakpoint(createSessionState(snapshot))).toMatchObject({ stepId: hit.stepId, kind: 'tool_call', tool: 'calculator', breakpoint: { tool: 'calc*', index: 0 } });

    const id = watcher.send({ type: 'session.resume', sessionId });
    expect(await watcher.answerTo(id)).toMatchObject({ type: 'session.status', status: 'running', requestId: id });
    const events: SessionEvent[] = await client.untilFinished(sessionId);
    expect(events.at(-1)).toMatchObject({ type: 'session.status', status: 'completed' });
    const state = applyEvents(createSessionState(), events);
    const chain = state.chain.map((stepId) => state.steps.get(stepId)!);
    expect(chain.map((step) => step.kind)).toEqual(['thought', 'action', 'tool_call', 'observation', 'final_answer']);
    expect(chain.at(-1)?.content).toContain('36');
    expect(pausedAtBreakpoint(state)).toBeUndefined();
  });

  it('answers bad breakpoints with BAD_FRAME whose details name the path, and the connection goes on', async () => {
    const client = await connect();
    const cases: [unknown, (string | number)[]][] = [
      ['some', ['options', 'breakpoints']],
      // A union's value: the path names the field (how deep inside it is the protocol's union rule).
      [[{ kind: 'user_message' }], ['options', 'breakpoints']],
      [[{ tool: 'calculator', at: 'once' }], ['options', 'breakpoints', 0, 'at']],
    ];
    for (const [breakpoints, path] of cases) {
      const id = client.send({ type: 'session.create', task: 'What is 2 + 2?', options: { breakpoints } });
      const answer = await client.answerTo(id);
      expect(answer).toMatchObject({ type: 'error', code: 'BAD_FRAME' });
      const details = (answer as { details?: { path: (string | number)[] }[] }).details ?? [];
      expect(details.some((detail) => path.every((part, index) => detail.path[index] === part))).toBe(true);
    }
    const sessionId = await client.createSession('What is 2 + 2?', { options: { tokenDelayMs: 0, breakpoints: [{}] } });
    expect(await client.waitForType('breakpoint.hit', (frame) => frame.sessionId === sessionId)).toMatchObject({ breakpoint: {}, index: 0 });
  });
});
