import { applyEvents, createSessionState, type SessionEvent } from '@interthought/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentRegistry } from '@interthought/agent';
import { streamStep } from '../../src/agents/stream-text.js';
import { startServer, type RunningServer } from '../support/server.js';
import { TestClient } from '../support/ws-client.js';

// Conversations over the wire: a real WebSocket client, the real server, an agent that answers
// the latest thing the user said (three steps, paced by the session's tokenDelayMs).
describe('session.message and session.fork over the wire', () => {
  let server: RunningServer;
  beforeAll(async () => {
    const agents = new AgentRegistry('echo').register({
      name: 'echo',
      description: 'Answers the latest user turn.',
      availability: () => ({ available: true }),
      async run(context) {
        const last = context.chain.at(-1);
        const said = last?.kind === 'user_message' ? last.content : context.task;
        await streamStep(context.sink, 'thought', `Thinking about ${said} for a while`);
        await streamStep(context.sink, 'final_answer', `You said: ${said}`);
      },
    });
    server = await startServer({}, { agents });
  });
  afterAll(() => server.close());

  const chainOf = (events: readonly SessionEvent[]) => {
    const state = applyEvents(createSessionState(), events);
    return state.chain.map((id) => `${state.steps.get(id)!.kind}: ${state.steps.get(id)!.content}`);
  };

  it('a follow-up is answered with message.accepted before its events, then a new turn', async () => {
    const client = await TestClient.connect(server.wsUrl);
    const hello = await client.waitForType('hello');
    expect(hello.capabilities).toContain('conversation');
    const sessionId = await client.createSession('Hi', { options: { tokenDelayMs: 0 } });
    const first = await client.untilFinished(sessionId);
    const id = client.send({ type: 'session.message', sessionId, text: 'And now?' });
    const accepted = await client.answerTo(id);
    expect(accepted).toMatchObject({ type: 'message.accepted', sessionId, queued: false, requestId: id });
    const started = await client.waitForType('step.started', (frame) => frame.sessionId === sessionId && frame.step.kind === 'user_message');
    expect(client.frames.indexOf(accepted)).toBeLessThan(client.frames.indexOf(started));
    await client.waitForType('session.status', (frame) => frame.sessionId === sessionId && frame.status === 'completed' && frame.seq > first.at(-1)!.seq);
    expect(chainOf(client.events(sessionId)).slice(-3)).toEqual(['user_message: And now?', 'thought: Thinking about And now? for a while', 'final_answer: You said: And now?']);
    await client.close();
  });

  it('queue while running: message.queued, then the next turn once this one ends, with no final status between', async () => {
    const client = await TestClient.connect(server.wsUrl);
    const sessionId = await client.createSession('Slow one', { options: { tokenDelayMs: 30 } });
    await client.waitForType('step.delta', (frame) => frame.sessionId === sessionId);
    const id = client.send({ type: 'session.message', sessionId, text: 'Next question', mode: 'queue' });
    expect(await client.answerTo(id)).toMatchObject({ type: 'message.accepted', queued: true });
    const queued = await client.waitForType('message.queued', (frame) => frame.sessionId === sessionId);
    expect(queued).toMatchObject({ text: 'Next question', mode: 'queue' });
    await client.waitFor((frame) => frame.type === 'step.completed' && frame.sessionId === sessionId && frame.content === 'You said: Next question', 'the second turn', 20_000);
    const turn = client.events(sessionId).find((event) => event.type === 'step.started' && event.step.stepId === queued.stepId)!;
    const before = client.events(sessionId).filter((event) => event.seq < turn.seq);
    expect(before.flatMap((event) => (event.type === 'session.status' ? [event.status] : []))).toEqual(['running']);
    const bad = client.send({ type: 'session.message', sessionId, text: '' });
    expect(await client.answerTo(bad)).toMatchObject({ type: 'error', code: 'BAD_FRAME' });
    await client.close();
  });

  it('fork answers session.created, subscribes the requester, and copies the path', async () => {
    const client = await TestClient.connect(server.wsUrl);
    const sessionId = await client.createSession('Fork me', { options: { tokenDelayMs: 0 } });
    const events = await client.untilFinished(sessionId);
    const source = applyEvents(createSessionState(), events);
    const id = client.send({ type: 'session.fork', sessionId, stepId: source.chain[0]! });
    const created = await client.answerTo(id);
    expect(created).toMatchObject({ type: 'session.created', session: { status: 'idle', task: 'Fork me', forkedFrom: { sessionId, stepId: source.chain[0], index: 0 } } });
    const forkId = (created as { session: { sessionId: string } }).session.sessionId;
    const copied = await client.waitForType('steps.copied', (frame) => frame.sessionId === forkId);
    expect(copied.steps.map((step) => step.content)).toEqual([source.steps.get(source.chain[0]!)!.content]);
    const missing = client.send({ type: 'session.fork', sessionId, stepId: 'nope' });
    expect(await client.answerTo(missing)).toMatchObject({ type: 'error', code: 'STEP_NOT_FOUND' });
    await client.close();
  });
});
