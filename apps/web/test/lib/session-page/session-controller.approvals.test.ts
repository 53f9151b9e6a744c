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

/** A session waiting for the approval of a calculator call, and a controller following it. */
async function waitingSession(locale: 'en' | 'zh' = 'en') {
  const log = new EventLog();
  log.step('thought', 'I need 15% of 240.');
  const call = log.step('tool_call', '{"expression":"240 * 15%"}', { tool: 'calculator' });
  log.askApproval(call);
  const snapshot = { type: 'session.snapshot', ...toSnapshot(applyEvents(createSessionState(log.info), log.events)) };
  server.answer = (frame, send) => {
    if (frame.type === 'session.subscribe') send({ ...snapshot, requestId: frame.id });
  };
  const toaster = new Toaster();
  const announcer = new Announcer();
  const frames = new ManualFrames();
  const controller = new SessionController(
    { client, i18n: new I18n({ languages: [locale] }), toaster, announcer, ownConnections: new OwnConnections(null), schedule: frames.schedule },
    log.sessionId,
  );
  controller.start();
  await until(() => controller.view.phase === 'ready');
  const step = controller.view.view(call)!;
  expect(controller.view.awaitsDecision(step)).toBe(true);
  return { log, call, controller, step, toaster, announcer };
}

describe('SessionController: approvals', () => {
  it('approves with tool.approve and announces it once the decision is recorded', async () => {
    const { log, call, controller, step, announcer } = await waitingSession();
    server.answer = (frame, send) => {
      if (frame.type === 'tool.approve') {
        send({ type: 'approval.resolved', requestId: frame.id, sessionId: log.sessionId, seq: 99, at: new Date().toISOString(), stepId: call, decision: 'approved', by: 'conn-1' });
      }
    };
    const approving = controller.approve(step);
    expect(step.decision.sending).toBe('approve');
    await approving;
    const sent = await server.next('tool.approve');
    expect(sent).toEqual({ type: 'tool.approve', id: sent.id, sessionId: log.sessionId, stepId: call });
    expect(step.decision.sending).toBeNull();
    await until(() => announcer.message === 'Approved. The tool runs now.');
    controller.dispose();
  });

  it('rejects with tool.reject and the trimmed reason', async () => {
    const { log, call, controller, step } = await waitingSession();
    server.answer = (frame, send) => {
      if (frame.type === 'tool.reject') {
        send({ type: 'approval.resolved', requestId: frame.id, sessionId: log.sessionId, seq: 99, at: new Date().toISOString(), stepId: call, decision: 'rejected', by: 'conn-1', reason: frame.reason });
      }
    };
    step.decision.openReject();
    step.decision.setReason('  Not on production data.  ');
    await controller.reject(step);
    expect(await server.next('tool.reject')).toMatchObject({ sessionId: log.sessionId, stepId: call, reason: 'Not on production data.' });
    expect(step.decision.rejecting).toBe(false);
    expect(step.decision.reason).toBe('');
    controller.dispose();
  });

  it('sends no reason when none was written', async () => {
    const { controller, step } = await waitingSession();
    server.answer = (frame, send) => {
      if (frame.type === 'tool.reject') send({ type: 'error', requestId: frame.id, code: 'RATE_LIMITED', message: 'Slow down.' });
    };
    await controller.reject(step);
    expect(await server.next('tool.reject')).not.toHaveProperty('reason');
    controller.dispose();
  });

  it('shows a decision made elsewhere first as a toast that says what happened, in Chinese too', async () => {
    const { controller, step, toaster } = await waitingSession('zh');
    server.answer = (frame, send) => {
      if (frame.type === 'tool.approve') send({ type: 'error', requestId: frame.id, code: 'APPROVAL_NOT_PENDING', message: 'Step st2 was already rejected by c_other.' });
    };
    step.decision.openReject();
    step.decision.setReason('kept');
    await controller.approve(step);
    expect(toaster.toasts).toHaveLength(1);
    expect(toaster.toasts[0]).toMatchObject({ tone: 'error', title: 'Step st2 was already rejected by c_other.' });
    expect(toaster.toasts[0]?.hint).toBe('这个工具调用已不再等待：它已经有了决定（可能是在另一个窗口里）。步骤上会显示结果。');
    expect(step.decision.sending).toBeNull();
    expect(step.decision.reason).toBe('kept');
    controller.dispose();
  });

  it('offers only Cancel while the session waits, and no lifecycle request in a status it does not know', () => {
    expect(SessionController.allowed('waiting')).toEqual({ pause: false, resume: false, cancel: true });
    expect(SessionController.allowed('hibernating' as never)).toEqual({ pause: false, resume: false, cancel: false });
  });
});
