import { EventType, type BaseEvent } from '@ag-ui/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentRegistry } from '@interthought/agent';
import { ASK_USER_TOOL } from '@interthought/protocol';
import { createDemoAgent } from '../../../src/agents/demo/index.js';
import { startServer, type RunningServer } from '../../support/server.js';
import { ASKED, askerAgent, askerAnswer } from '../../core/service-contract/asking-agents.js';
import { ThreadClient, runFinished, runInput, textOf, typesOf } from './support.js';

// Serving a question over AG-UI (PROTOCOL.md §23, §25.6) to the official `HttpAgent`: the run ends
// with an `input_required` interrupt, a resume entry answers it with `input.provide`, `cancelled`
// leaves it waiting, and a run without resume gets the interrupt again.

const TASK = 'What if it were 25?';

interface QuestionInterrupt {
  id: string;
  reason: string;
  message: string;
  toolCallId: string;
  responseSchema: unknown;
  metadata: unknown;
}

describe('POST /api/ag-ui/:agent: questions', () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startServer({}, { agents: new AgentRegistry('demo').register(createDemoAgent()).register(askerAgent()) });
  });
  afterAll(() => server.close());

  /** A thread whose first run ended at the asker's question: its client and interrupt. */
  async function asked(): Promise<{ client: ThreadClient; interrupt: QuestionInterrupt; first: BaseEvent[] }> {
    const client = new ThreadClient(server.baseUrl, 'asker');
    const first = await client.say(TASK);
    const { outcome } = runFinished<QuestionInterrupt>(first);
    expect(outcome.type).toBe('interrupt');
    expect(outcome.interrupts).toHaveLength(1);
    return { client, interrupt: outcome.interrupts![0]!, first };
  }

  it('a waiting question ends the run with an input_required interrupt naming the ask_user call', async () => {
    const { client, interrupt, first } = await asked();
    const call = first.find((event) => event.type === EventType.TOOL_CALL_START) as unknown as { toolCallId: string; toolCallName: string };
    expect(call.toolCallName).toBe(ASK_USER_TOOL);
    expect(interrupt).toEqual({
      id: call.toolCallId,
      reason: 'input_required',
      message: ASKED.question,
      toolCallId: call.toolCallId,
      responseSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
      metadata: { interthought: { choices: [...ASKED.choices] } },
    });
    const snapshot = (await server.app.sessions.snapshot(client.threadId))!;
    expect(snapshot.session.status).toBe('waiting');
    expect(snapshot.steps.find((step) => step.stepId === interrupt.id)).toMatchObject({ tool: ASK_USER_TOOL, question: { state: 'pending' } });
  });

  it('a run without resume, and a cancelled resume entry, get the interrupt again; the question still waits', async () => {
    const { client, interrupt } = await asked();
    // The official client will not run a thread with an interrupt unanswered: a fresh one on the thread (a reload) does.
    const fresh = new ThreadClient(server.baseUrl, 'asker', {}, client.threadId as ReturnType<typeof crypto.randomUUID>);
    const again = await fresh.run();
    // It holds no messages, so it gets the chain first: the question's call among them.
    expect(typesOf(again)).toEqual([EventType.RUN_STARTED, EventType.MESSAGES_SNAPSHOT, EventType.RUN_FINISHED]);
    expect(runFinished<QuestionInterrupt>(again).outcome).toEqual({ type: 'interrupt', interrupts: [interrupt] });
    expect(fresh.agent.messages.at(-1)).toMatchObject({ role: 'assistant', toolCalls: [{ id: interrupt.id, function: { name: ASK_USER_TOOL } }] });
    const cancelled = await client.run({ resume: [{ interruptId: interrupt.id, status: 'cancelled' }] });
    expect(typesOf(cancelled)).toEqual([EventType.RUN_STARTED, EventType.RUN_FINISHED]);
    expect(runFinished<QuestionInterrupt>(cancelled).outcome).toEqual({ type: 'interrupt', interrupts: [interrupt] });
    const snapshot = (await server.app.sessions.snapshot(client.threadId))!;
    expect(snapshot.session.status).toBe('waiting');
    expect(snapshot.steps.find((step) => step.stepId === interrupt.id)?.question).toMatchObject({ state: 'pending' });
  });

  it('resume with payload { text } answers with input.provide: the observation, then the agent goes on with it', async () => {
    const { client, interrupt } = await asked();
    const second = await client.run({ resume: [{ interruptId: interrupt.id, status: 'resolved', payload: { text: '5' } }] });
    expect(runFinished<QuestionInterrupt>(second).outcome).toEqual({ type: 'success' });
    expect(second.find((event) => event.type === EventType.TOOL_CALL_RESULT)).toMatchObject({ toolCallId: interrupt.id, content: '5' });
    expect(textOf(second)).toBe(askerAnswer('5'));
    const snapshot = (await server.app.sessions.snapshot(client.threadId))!;
    expect(snapshot.session.status).toBe('completed');
    const observation = snapshot.steps.find((step) => step.kind === 'observation' && step.parentId === interrupt.id);
    expect(observation).toMatchObject({ tool: ASK_USER_TOOL, content: '5', result: { answer: '5', choice: 1 } });
    expect(snapshot.steps.find((step) => step.stepId === interrupt.id)?.question).toMatchObject({ state: 'answered' });
    // The client's history holds the call and its result, as any tool call's.
    expect(client.agent.messages.find((message) => message.role === 'tool' && message.toolCallId === interrupt.id)).toMatchObject({ content: '5' });
  });

  it('a string payload is the answer too', async () => {
    const { client, interrupt } = await asked();
    const second = await client.run({ resume: [{ interruptId: interrupt.id, status: 'resolved', payload: 'the first one' }] });
    expect(runFinished<QuestionInterrupt>(second).outcome).toEqual({ type: 'success' });
    expect(textOf(second)).toBe(askerAnswer('the first one'));
  });

  it('an answer for a question already answered is ignored: the run ends as the session stands', async () => {
    const { client, interrupt } = await asked();
    await client.run({ resume: [{ interruptId: interrupt.id, status: 'resolved', payload: { text: '20' } }] });
    const late = await client.run({ resume: [{ interruptId: interrupt.id, status: 'resolved', payload: { text: '5' } }] });
    expect(typesOf(late)).toEqual([EventType.RUN_STARTED, EventType.RUN_FINISHED]);
    expect(runFinished<QuestionInterrupt>(late).outcome).toEqual({ type: 'success' });
    const snapshot = (await server.app.sessions.snapshot(client.threadId))!;
    expect(snapshot.steps.filter((step) => step.kind === 'observation').map((step) => step.content)).toEqual(['20']);
  });

  it('refuses an answer that is no text with 400 before any stream, and the question still waits', async () => {
    const { client, interrupt } = await asked();
    for (const payload of [{ text: '' }, { text: 42 }, '']) {
      const response = await fetch(`${server.baseUrl}/api/ag-ui/asker`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ ...runInput(client.threadId, TASK), messages: [], resume: [{ interruptId: interrupt.id, status: 'resolved', payload }] }),
      });
      expect(response.status).toBe(400);
      expect(await response.json()).toMatchObject({ code: 'BAD_REQUEST', message: expect.stringContaining('resume.0.payload') });
    }
    expect((await server.app.sessions.snapshot(client.threadId))!.session.status).toBe('waiting');
  });
});
