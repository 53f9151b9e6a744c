import { EventType } from '@ag-ui/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../support/server.js';
import { TestClient } from '../../support/ws-client.js';
import { ThreadClient, runFinished, runInput, textOf, typesOf } from './support.js';

const TASK = 'What is 15% of 240?';
const APPROVE_ALL = { interthought: { options: { approve: 'all' } } };

describe('POST /api/ag-ui/:agent with the AG-UI HttpAgent', () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(() => server.close());

  it('streams a demo run with a tool call in order, and the thread is an Interthought session', async () => {
    const client = new ThreadClient(server.baseUrl);
    const events = await client.say(TASK);
    const types = typesOf(events);
    expect(types[0]).toBe(EventType.RUN_STARTED);
    expect(events[0]).toMatchObject({ threadId: client.threadId, protocolVersion: expect.any(String) });
    const order = [EventType.REASONING_START, EventType.TOOL_CALL_START, EventType.TOOL_CALL_ARGS, EventType.TOOL_CALL_END, EventType.TOOL_CALL_RESULT, EventType.TEXT_MESSAGE_START, EventType.TEXT_MESSAGE_END];
    const positions = order.map((type) => types.indexOf(type));
    expect(positions.every((position) => position > 0)).toBe(true);
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
    expect(runFinished(events)).toMatchObject({ outcome: { type: 'success' } });
    expect(textOf(events)).toContain('36');
    const start = events.find((event) => event.type === EventType.TOOL_CALL_START) as unknown as { toolCallName: string; toolCallId: string };
    expect(start.toolCallName).toBe('calculator');
    expect(events.find((event) => event.type === EventType.TOOL_CALL_RESULT)).toMatchObject({ toolCallId: start.toolCallId });
    const snapshot = await server.app.sessions.snapshot(client.threadId);
    expect(snapshot?.session).toMatchObject({ task: TASK, agent: 'demo', status: 'completed' });
    expect(client.agent.messages.at(-1)).toMatchObject({ role: 'assistant', content: expect.stringContaining('36') });
  });

  it('a follow-up run on the thread is a user_message of the same session and a second answer', async () => {
    const client = new ThreadClient(server.baseUrl);
    await client.say(TASK);
    const second = await client.say('And what is 20% of 50?');
    expect(typesOf(second)).not.toContain(EventType.MESSAGES_SNAPSHOT);
    expect(runFinished(second)).toMatchObject({ outcome: { type: 'success' } });
    expect(textOf(second)).toContain('10');
    const snapshot = (await server.app.sessions.snapshot(client.threadId))!;
    const chain = snapshot.chain.map((id) => snapshot.steps.find((step) => step.stepId === id)!);
    expect(chain.filter((step) => step.kind === 'user_message').map((step) => step.content)).toEqual(['And what is 20% of 50?']);
    expect(chain.filter((step) => step.kind === 'final_answer')).toHaveLength(2);
  });

  it('a call that waits for approval ends the run with an interrupt; resume approves it', async () => {
    const client = new ThreadClient(server.baseUrl);
    const first = await client.say(TASK, APPROVE_ALL);
    const outcome = runFinished(first).outcome as { type: string; interrupts: Array<Record<string, unknown>> };
    expect(outcome.type).toBe('interrupt');
    const [interrupt] = outcome.interrupts;
    const call = first.find((event) => event.type === EventType.TOOL_CALL_START) as unknown as { toolCallId: string };
    expect(interrupt).toMatchObject({ reason: 'tool_call', toolCallId: call.toolCallId, responseSchema: { properties: { approved: {}, editedArgs: {} } } });
    const second = await client.run({ resume: [{ interruptId: interrupt!.id as string, status: 'resolved', payload: { approved: true } }] });
    expect(typesOf(second)).toContain(EventType.TOOL_CALL_RESULT);
    expect(runFinished(second)).toMatchObject({ outcome: { type: 'success' } });
    expect(textOf(second)).toContain('36');
    const snapshot = (await server.app.sessions.snapshot(client.threadId))!;
    expect(snapshot.steps.find((step) => step.stepId === call.toolCallId)?.approval).toMatchObject({ state: 'approved' });
  });

  it('resume with editedArgs corrects the waiting call, which runs as edited', async () => {
    const client = new ThreadClient(server.baseUrl);
    const first = await client.say(TASK, APPROVE_ALL);
    const [interrupt] = runFinished<{ id: string }>(first).outcome.interrupts!;
    const second = await client.run({ resume: [{ interruptId: interrupt!.id, status: 'resolved', payload: { approved: true, editedArgs: { expression: '0.5 * 240' } } }] });
    expect(typesOf(second)).toContain(EventType.MESSAGES_SNAPSHOT);
    expect(runFinished(second)).toMatchObject({ outcome: { type: 'success' } });
    expect(textOf(second)).toContain('120');
    const snapshot = (await server.app.sessions.snapshot(client.threadId))!;
    expect(snapshot.steps.find((step) => step.stepId === interrupt!.id)?.status).toBe('invalidated');
    const edited = snapshot.steps.find((step) => step.correctionOf === interrupt!.id);
    expect(edited).toMatchObject({ kind: 'tool_call', approval: { state: 'edited' } });
    expect(client.agent.messages.some((message) => message.id === edited!.stepId)).toBe(true);
  });

  it('resume with approved false rejects the call: a refusal observation, then an answer', async () => {
    const client = new ThreadClient(server.baseUrl);
    const first = await client.say(TASK, APPROVE_ALL);
    const [interrupt] = runFinished<{ id: string }>(first).outcome.interrupts!;
    const second = await client.run({ resume: [{ interruptId: interrupt!.id, status: 'resolved', payload: { approved: false, reason: 'no tools' } }] });
    expect(runFinished(second)).toMatchObject({ outcome: { type: 'success' } });
    const result = second.find((event) => event.type === EventType.TOOL_CALL_RESULT) as unknown as { content: string };
    expect(result.content).toContain('no tools');
    const snapshot = (await server.app.sessions.snapshot(client.threadId))!;
    expect(snapshot.steps.find((step) => step.stepId === interrupt!.id)?.approval).toMatchObject({ state: 'rejected', reason: 'no tools' });
  });

  it('after a correction over /ws, the next run starts with a MESSAGES_SNAPSHOT of the corrected chain', async () => {
    const client = new ThreadClient(server.baseUrl);
    await client.say(TASK);
    const snapshot = (await server.app.sessions.snapshot(client.threadId))!;
    const thought = snapshot.steps.find((step) => step.kind === 'thought')!;
    const ws = await TestClient.connect(server.wsUrl);
    ws.send({ type: 'session.subscribe', sessionId: client.threadId });
    await ws.waitForType('session.snapshot');
    const id = ws.send({ type: 'step.correct', sessionId: client.threadId, stepId: thought.stepId, content: 'I should compute 240 * 0.15 with the calculator.' });
    const accepted = await ws.answerTo(id);
    expect(accepted).toMatchObject({ type: 'correction.accepted' });
    await ws.untilFinished(client.threadId);
    await ws.close();
    const next = await client.say('Thanks! And 10% of 90?');
    expect(typesOf(next).slice(0, 2)).toEqual([EventType.RUN_STARTED, EventType.MESSAGES_SNAPSHOT]);
    const messages = (next[1] as unknown as { messages: Array<{ id: string }> }).messages.map((message) => message.id);
    expect(messages).toContain((accepted as { newStepId: string }).newStepId);
    expect(messages).not.toContain(thought.stepId);
    expect(runFinished(next)).toMatchObject({ outcome: { type: 'success' } });
  });

  it('answers protobuf when the client asks for it', async () => {
    const response = await fetch(`${server.baseUrl}/api/ag-ui/demo`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/vnd.ag-ui.event+proto' },
      body: JSON.stringify(runInput(`t-${Date.now()}`, TASK)),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('application/vnd.ag-ui.event+proto');
    expect((await response.arrayBuffer()).byteLength).toBeGreaterThan(0);
  });

  it('refuses bad input with 400 and its reason, an unknown agent with 404, before any stream', async () => {
    const bad = await fetch(`${server.baseUrl}/api/ag-ui/demo`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ threadId: 't1' }) });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ code: 'BAD_REQUEST', message: expect.stringContaining('runId') });
    const badOptions = await fetch(`${server.baseUrl}/api/ag-ui/demo`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(runInput('t-bad-options', TASK, { forwardedProps: { interthought: { options: { approve: 42 } } } })),
    });
    expect(badOptions.status).toBe(400);
    const unknown = await fetch(`${server.baseUrl}/api/ag-ui/nobody`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(runInput('t2', TASK)) });
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ code: 'AGENT_NOT_FOUND' });
  });
});
