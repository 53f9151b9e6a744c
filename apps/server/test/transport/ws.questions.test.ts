import { applyEvents, createSessionState } from '@interthought/protocol';
import { AgentRegistry } from '@interthought/agent';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDemoAgent } from '../../src/agents/demo/index.js';
import { createDefaultTools } from '../../src/tools/index.js';
import { startServer, type RunningServer } from '../support/server.js';
import { TestClient } from '../support/ws-client.js';
import { ASKED, askerAgent } from '../core/service-contract/asking-agents.js';

// Questions over the wire (PROTOCOL.md §25.1, §25.2): real WebSocket clients against the real server.
describe('ask_user and input.provide over the wire', () => {
  let server: RunningServer;
  beforeAll(async () => {
    const agents = new AgentRegistry('demo').register(createDemoAgent()).register(askerAgent());
    server = await startServer({}, { agents, tools: createDefaultTools() });
  });
  afterAll(() => server.close());

  /** An `asker` session waiting for its answer, and two more connections following it. */
  async function askingSession() {
    const creator = await TestClient.connect(server.wsUrl);
    expect((await creator.waitForType('hello')).capabilities).toContain('questions');
    const sessionId = await creator.createSession('Replace a number', { agent: 'asker', options: { tokenDelayMs: 0 } });
    const requested = await creator.waitForType('input.requested', (frame) => frame.sessionId === sessionId);
    await creator.waitForType('session.status', (frame) => frame.sessionId === sessionId && frame.status === 'waiting');
    const follow = async (): Promise<TestClient> => {
      const client = await TestClient.connect(server.wsUrl);
      client.send({ type: 'session.subscribe', sessionId });
      await client.waitForType('session.snapshot');
      return client;
    };
    return { creator, one: await follow(), two: await follow(), sessionId, stepId: requested.stepId, requested };
  }

  it('of two connections answering at once, exactly one wins; the other gets INPUT_NOT_PENDING naming who answered', async () => {
    const { creator, one, two, sessionId, stepId, requested } = await askingSession();
    expect(requested).toMatchObject({ question: ASKED.question, choices: [...ASKED.choices] });
    const oneId = one.send({ type: 'input.provide', sessionId, stepId, text: '20' });
    const twoId = two.send({ type: 'input.provide', sessionId, stepId, text: '5' });
    const answers = [await one.answerTo(oneId), await two.answerTo(twoId)];
    const won = answers.filter((answer) => answer.type === 'input.resolved');
    const lost = answers.filter((answer) => answer.type === 'error');
    expect(won).toHaveLength(1);
    expect(lost).toHaveLength(1);
    const winner = answers[0]!.type === 'input.resolved' ? one : two;
    const winnerId = (await winner.waitForType('hello')).connectionId;
    expect(won[0]).toMatchObject({ stepId, outcome: 'answered', by: winnerId });
    expect(lost[0]).toMatchObject({ code: 'INPUT_NOT_PENDING', message: expect.stringContaining(`already answered by ${winnerId}`) });

    const state = applyEvents(createSessionState(), await creator.untilFinished(sessionId));
    expect(state.session.status).toBe('completed');
    const chain = state.chain.map((id) => state.steps.get(id)!);
    expect(chain.map((step) => step.kind)).toEqual(['thought', 'tool_call', 'observation', 'final_answer']);
    expect(chain[2]).toMatchObject({ tool: 'ask_user', content: winner === one ? '20' : '5', by: winnerId });
    await Promise.all([creator.close(), one.close(), two.close()]);
  });

  it('refuses bad answers with typed errors, and the session goes on waiting', async () => {
    const { creator, one, two, sessionId, stepId } = await askingSession();
    const empty = one.send({ type: 'input.provide', sessionId, stepId, text: '' });
    expect(await one.answerTo(empty)).toMatchObject({ type: 'error', code: 'BAD_FRAME' });
    const unknownField = one.send({ type: 'input.provide', sessionId, stepId, text: '5', choice: 1 });
    expect(await one.answerTo(unknownField)).toMatchObject({ type: 'error', code: 'BAD_FRAME' });
    const noStep = one.send({ type: 'input.provide', sessionId, stepId: 'nope', text: '5' });
    expect(await one.answerTo(noStep)).toMatchObject({ type: 'error', code: 'STEP_NOT_FOUND' });
    const noSession = one.send({ type: 'input.provide', sessionId: 'no-such-session', stepId, text: '5' });
    expect(await one.answerTo(noSession)).toMatchObject({ type: 'error', code: 'SESSION_NOT_FOUND' });
    const message = two.send({ type: 'session.message', sessionId, text: 'Hurry.' });
    expect(await two.answerTo(message)).toMatchObject({ type: 'error', code: 'INVALID_STATE' });
    const answer = two.send({ type: 'input.provide', sessionId, stepId, text: '5' });
    expect(await two.answerTo(answer)).toMatchObject({ type: 'input.resolved', outcome: 'answered', requestId: answer });
    expect(applyEvents(createSessionState(), await creator.untilFinished(sessionId)).session.status).toBe('completed');
    await Promise.all([creator.close(), one.close(), two.close()]);
  });
});
