import { applyEvents, createSessionState, type ServerMessage, type Step } from '@interthought/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../support/server.js';
import { TestClient } from '../../support/ws-client.js';

// Issue #30 end to end: a real WebSocket client against the real server runs the demo agent on
// a question of several parts, then the follow-ups and the steer a newcomer types.
describe('demo agent: the whole question and a newcomer\'s follow-ups, over the wire', () => {
  let server: RunningServer;
  let client: TestClient;
  beforeAll(async () => {
    server = await startServer();
    client = await TestClient.connect(server.wsUrl);
    await client.waitForType('hello');
  });
  afterAll(async () => {
    await client.close();
    await server.close();
  });

  function next(sessionId: string, from: number, match: (frame: ServerMessage) => boolean, what: string): Promise<ServerMessage> {
    let seen = 0;
    return client.waitFor((frame) => seen++ >= from && 'sessionId' in frame && frame.sessionId === sessionId && match(frame), what);
  }

  function untilCompleted(sessionId: string, from: number): Promise<ServerMessage> {
    return next(sessionId, from, (frame) => frame.type === 'session.status' && frame.status === 'completed', `session ${sessionId} to complete`);
  }

  /** The session's chain, folded from the events this client received with the protocol's reducer. */
  function chainOf(sessionId: string): Step[] {
    const state = applyEvents(createSessionState(), client.events(sessionId));
    return state.chain.map((stepId) => state.steps.get(stepId)!);
  }

  /** Send a follow-up once the session completed, and wait until the turn it starts completes. */
  async function say(sessionId: string, text: string): Promise<Step[]> {
    const mark = client.frames.length;
    client.send({ type: 'session.message', sessionId, text });
    await next(sessionId, mark, (frame) => frame.type === 'session.status' && frame.status === 'running', `session ${sessionId} to run`);
    await untilCompleted(sessionId, mark);
    const chain = chainOf(sessionId);
    return chain.slice(chain.findLastIndex((step) => step.kind === 'user_message'));
  }

  function converterInputs(steps: readonly Step[]): unknown[] {
    return steps.filter((step) => step.kind === 'tool_call' && step.tool === 'unit_converter').map((step) => JSON.parse(step.content));
  }

  it('answers every part, then a new count, then that amount in kilograms and in pounds', async () => {
    const mark = client.frames.length;
    const sessionId = await client.createSession('A recipe needs 250 g flour for 4 people. How much for 10 people, and what is that in kilograms?', { agent: 'demo' });
    await untilCompleted(sessionId, mark);
    const first = chainOf(sessionId);
    expect(first.map((step) => step.kind)).toEqual([
      'thought', 'action', 'tool_call', 'observation', 'action', 'tool_call', 'observation', 'action', 'tool_call', 'observation', 'final_answer',
    ]);
    expect(first.find((step) => step.tool === 'unit_converter' && step.kind === 'observation')).toMatchObject({ result: { value: 0.625, unit: 'kg' } });
    expect(first.at(-1)!.content).toBe('For 10 people you need 625 grams, which is 0.625 kilograms.');

    const count = await say(sessionId, 'Now for 25 people');
    expect(count.at(-1)!.content).toBe('With 25 instead of 10: For 25 people you need 1562.5 grams, which is about 1.56 kilograms.');

    const pounds = await say(sessionId, 'And in pounds?');
    expect(converterInputs(pounds)).toEqual([{ value: 1.5625, from: 'kg', to: 'lb' }]);
    expect(pounds.at(-1)!.content).toBe('About 1.56 kilograms is about 3.44 pounds.');
  });

  it('「那是多少千克？」 converts the previous answer; an unrelated request still declines', async () => {
    const mark = client.frames.length;
    const sessionId = await client.createSession('4个人需要250克面粉，10个人需要多少克？', { agent: 'demo' });
    await untilCompleted(sessionId, mark);
    expect(chainOf(sessionId).at(-1)!.content).toBe('10个人需要625克。');

    const kilograms = await say(sessionId, '那是多少千克？');
    expect(converterInputs(kilograms)).toEqual([{ value: 625, from: 'g', to: 'kg' }]);
    expect(kilograms.at(-1)!.content).toBe('625克等于0.625公斤。');

    const poem = await say(sessionId, '给我写一首诗');
    expect(poem.some((step) => step.kind === 'tool_call')).toBe(false);
    expect(poem.at(-1)!.kind).toBe('final_answer');
  });

  it('「请用千米每小时回答」 sent at a step boundary (a breakpoint after the first calculation) steers the run', async () => {
    const mark = client.frames.length;
    const task = '一辆车2小时行驶150千米，速度是多少米每秒？';
    const sessionId = await client.createSession(task, { agent: 'demo', options: { breakpoints: [{ kind: 'observation', tool: 'calculator' }] } });
    await next(sessionId, mark, (frame) => frame.type === 'session.status' && frame.status === 'paused', 'the breakpoint pause');
    expect(chainOf(sessionId).map((step) => step.kind)).toEqual(['thought', 'action', 'tool_call', 'observation']);
    const steerAt = client.frames.length;
    const id = client.send({ type: 'session.message', sessionId, text: '请用千米每小时回答', mode: 'steer' });
    // At a breakpoint stop the message waits (message.queued) and reaches the chain when the run goes on.
    expect(await client.answerTo(id)).toMatchObject({ type: 'message.accepted' });
    // The steered turn stops at its own calculator observation too: resume until the run completes.
    for (let stop = 0; stop < 3 && chainOf(sessionId).at(-1)?.kind !== 'final_answer'; stop++) {
      const resumedAt = client.frames.length;
      client.send({ type: 'session.resume', sessionId });
      await next(sessionId, resumedAt, (frame) => frame.type === 'session.status' && (frame.status === 'paused' || frame.status === 'completed'), 'the next stop');
    }
    const chain = chainOf(sessionId);
    const message = chain.findIndex((step) => step.kind === 'user_message');
    expect(message).toBe(4);
    const turn = chain.slice(message + 1);
    // The question's m/s is replaced by the unit asked for: one calculation in km/h, no conversion to m/s and back.
    expect(turn.map((step) => step.kind)).toEqual(['thought', 'action', 'tool_call', 'observation', 'final_answer']);
    expect(turn[2]).toMatchObject({ tool: 'calculator', content: JSON.stringify({ expression: '150 / 2' }) });
    expect(turn.at(-1)!.content).toBe('按照你的要求（请用千米每小时回答），平均速度是每小时75公里（75 km/h）。');
    expect(client.frames.slice(steerAt).some((frame) => frame.type === 'error')).toBe(false);
  });
});
