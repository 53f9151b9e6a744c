import { createSessionState, applyEvents, toSnapshot, type InterthoughtClient } from '@interthought/protocol';
import { describe, expect, it } from 'vitest';
import { Announcer } from '$lib/app/announcer.svelte.js';
import { OwnConnections } from '$lib/app/own-connections.js';
import { Toaster } from '$lib/app/toaster.svelte.js';
import { SessionController } from '$lib/session-page/session-controller.svelte.js';
import { I18n } from '$lib/i18n/index.js';
import { EventLog, ManualFrames } from '../../support/session-events.js';
import { useConnectedClient, type ScriptedServer } from '../../support/scripted-server.js';
import { until } from '../../support/app.js';

let server: ScriptedServer;
let client: InterthoughtClient;
useConnectedClient((started, connected) => {
  server = started;
  client = connected;
});

/** A controller following the session `log` holds. */
async function follow(log: EventLog) {
  const snapshot = { type: 'session.snapshot', ...toSnapshot(applyEvents(createSessionState(log.info), log.events)) };
  server.answer = (frame, send) => {
    if (frame.type === 'session.subscribe') send({ ...snapshot, requestId: frame.id });
  };
  const toaster = new Toaster();
  const announcer = new Announcer();
  const controller = new SessionController(
    { client, i18n: new I18n({ languages: ['en'] }), toaster, announcer, ownConnections: new OwnConnections(null), schedule: new ManualFrames().schedule },
    log.sessionId,
  );
  controller.start();
  await until(() => controller.view.phase === 'ready');
  return { controller, toaster, announcer };
}

describe('SessionController: human in the loop (PROTOCOL.md §25)', () => {
  it('answers a waiting question with input.provide, and the field is empty once it is recorded', async () => {
    const log = new EventLog();
    const call = log.step('tool_call', '{"question":"Which city?"}', { tool: 'ask_user' });
    log.askQuestion(call);
    const { controller, announcer } = await follow(log);
    const step = controller.view.view(call)!;
    expect(controller.view.awaitsAnswer(step)).toBe(true);
    expect(controller.view.awaitingQuestion?.stepId).toBe(call);
    server.answer = (frame, send) => {
      if (frame.type === 'input.provide') send({ type: 'input.resolved', requestId: frame.id, sessionId: log.sessionId, seq: 99, at: new Date().toISOString(), stepId: call, outcome: 'answered', by: 'conn-1' });
    };
    step.answer.setText('Rome');
    await controller.answerQuestion(step, 'Rome');
    const sent = await server.next('input.provide');
    expect(sent).toEqual({ type: 'input.provide', id: sent.id, sessionId: log.sessionId, stepId: call, text: 'Rome' });
    expect(step.answer.text).toBe('');
    await until(() => announcer.message === 'Answer sent. The agent continues.');
    controller.dispose();
  });

  it('keeps the typed answer and shows a toast when the answer is refused', async () => {
    const log = new EventLog();
    const call = log.step('tool_call', '{"question":"Which city?"}', { tool: 'ask_user' });
    log.askQuestion(call);
    const { controller, toaster } = await follow(log);
    const step = controller.view.view(call)!;
    server.answer = (frame, send) => {
      if (frame.type === 'input.provide') send({ type: 'error', requestId: frame.id, code: 'INPUT_NOT_PENDING', message: 'Step st1 was answered by Ada.' });
    };
    step.answer.setText('Rome');
    await controller.answerQuestion(step, 'Rome');
    expect(step.answer.text).toBe('Rome');
    expect(step.answer.sending).toBe(false);
    expect(toaster.toasts[0]).toMatchObject({ tone: 'error', title: 'Step st1 was answered by Ada.' });
    controller.dispose();
  });

  it('approves with remember: "session", and forgets one tool or all of them', async () => {
    const log = new EventLog();
    const call = log.step('tool_call', '{"expression":"1+1"}', { tool: 'calculator' });
    log.askApproval(call);
    const { controller } = await follow(log);
    server.answer = (frame, send) => {
      const base = { requestId: frame.id, sessionId: log.sessionId, seq: 99, at: new Date().toISOString() };
      if (frame.type === 'tool.approve') send({ type: 'approval.resolved', ...base, stepId: call, decision: 'approved', by: 'conn-1', remember: 'session' });
      if (frame.type === 'approvals.forget') send({ type: 'approvals.forgotten', ...base, seq: 100, tools: ['calculator'], by: 'conn-1' });
    };
    await controller.approve(controller.view.view(call)!, { remember: 'session' });
    const approve = await server.next('tool.approve');
    expect(approve).toEqual({ type: 'tool.approve', id: approve.id, sessionId: log.sessionId, stepId: call, remember: 'session' });
    await controller.forget('calculator');
    const forget = await server.next('approvals.forget');
    expect(forget).toEqual({ type: 'approvals.forget', id: forget.id, sessionId: log.sessionId, tool: 'calculator' });
    await controller.forget();
    const all = await server.next('approvals.forget');
    expect(all).toEqual({ type: 'approvals.forget', id: all.id, sessionId: log.sessionId });
    controller.dispose();
  });
});
