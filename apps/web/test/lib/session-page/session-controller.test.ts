import { createSessionState, applyEvents, toSnapshot, type InterthoughtClient } from '@interthought/protocol';
import { flushSync } from 'svelte';
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

function controllerFor(sessionId: string) {
  const toaster = new Toaster();
  const frames = new ManualFrames();
  const controller = new SessionController(
    { client, i18n: new I18n({ languages: ['en'] }), toaster, announcer: new Announcer(), ownConnections: new OwnConnections(null), schedule: frames.schedule },
    sessionId,
  );
  return { controller, toaster, frames };
}

/** A completed session with a tool call, as a snapshot frame answering `requestId`. */
function snapshotOf(log: EventLog, requestId: string | undefined) {
  const state = applyEvents(createSessionState(log.info), log.events);
  state.session.status = 'completed';
  return { type: 'session.snapshot', requestId, ...toSnapshot(state) };
}

describe('SessionController', () => {
  it('subscribes and shows the session from its snapshot', async () => {
    const log = new EventLog();
    log.step('thought', 'Divide.');
    const call = log.step('tool_call', '{"expression":"180 / 2.5"}', { tool: 'calculator' });
    server.answer = (frame, send) => {
      if (frame.type === 'session.subscribe') send(snapshotOf(log, frame.id));
    };
    const { controller } = controllerFor(log.sessionId);
    controller.start();
    await until(() => controller.view.phase === 'ready');
    expect(controller.view.layout.path).toHaveLength(2);
    expect(controller.view.view(call)?.tool).toBe('calculator');
    controller.dispose();
  });

  it('shows "not found" when the server does not know the session', async () => {
    server.answer = (frame, send) => {
      if (frame.type === 'session.subscribe') send({ type: 'error', requestId: frame.id, code: 'SESSION_NOT_FOUND', message: 'No session "nope".' });
    };
    const { controller } = controllerFor('nope');
    controller.start();
    await until(() => controller.view.phase === 'not_found');
    expect(controller.view.loadError?.message).toBe('No session "nope".');
  });

  it('sends a correction with the revision it saw and compact JSON, and keeps the text when refused', async () => {
    const log = new EventLog();
    const call = log.step('tool_call', '{"expression":"180 / 2.5"}', { tool: 'calculator' });
    server.answer = (frame, send) => {
      if (frame.type === 'session.subscribe') send(snapshotOf(log, frame.id));
      if (frame.type === 'step.correct') {
        send({ type: 'error', requestId: frame.id, code: 'STALE_REVISION', message: 'Step moved on: the session is at revision 3.' });
      }
    };
    const { controller } = controllerFor(log.sessionId);
    controller.start();
    await until(() => controller.view.phase === 'ready');
    const step = controller.view.view(call)!;
    const draft = step.openEditor();
    draft.setText('{\n  "expression": "180 / 3"\n}');
    draft.setNote('  three hours, not 2.5  ');

    await controller.submitCorrection(step, draft);
    const sent = await server.next('step.correct');
    expect(sent).toMatchObject({ sessionId: log.sessionId, stepId: call, content: '{"expression":"180 / 3"}', note: 'three hours, not 2.5', baseRevision: 0 });
    expect(draft.error).toEqual({ code: 'STALE_REVISION', message: 'Step moved on: the session is at revision 3.' });
    expect(draft.pending).toBe(false);
    expect(step.draft).toBe(draft);
    expect(draft.text).toBe('{\n  "expression": "180 / 3"\n}');
    controller.dispose();
  });

  it('closes the editor when the correction is accepted', async () => {
    const log = new EventLog();
    const thought = log.step('thought', 'Multiply.');
    server.answer = (frame, send) => {
      if (frame.type === 'session.subscribe') send(snapshotOf(log, frame.id));
      if (frame.type === 'step.correct') send({ type: 'correction.accepted', requestId: frame.id, sessionId: log.sessionId, stepId: thought, newStepId: 'st99', revision: 1 });
    };
    const { controller } = controllerFor(log.sessionId);
    controller.start();
    await until(() => controller.view.phase === 'ready');
    const step = controller.view.view(thought)!;
    step.openEditor().setText('Divide.');
    await controller.submitCorrection(step, step.draft!);
    flushSync();
    expect(step.draft).toBeNull();
  });

  it('turns a refused pause into a toast that says what to do', async () => {
    const log = new EventLog();
    server.answer = (frame, send) => {
      if (frame.type === 'session.subscribe') send(snapshotOf(log, frame.id));
      if (frame.type === 'session.pause') send({ type: 'error', requestId: frame.id, code: 'INVALID_STATE', message: 'The session is completed; only a running session can be paused.' });
    };
    const { controller, toaster } = controllerFor(log.sessionId);
    controller.start();
    await until(() => controller.view.phase === 'ready');
    await controller.pause();
    expect(controller.busy).toBeNull();
    expect(toaster.toasts).toHaveLength(1);
    expect(toaster.toasts[0]).toMatchObject({ tone: 'error', title: 'The session is completed; only a running session can be paused.' });
    expect(toaster.toasts[0]?.hint).toBe('That isn’t possible in the session’s current state.');
  });

  it('enables the lifecycle buttons that fit each status', () => {
    expect(SessionController.allowed('running')).toEqual({ pause: true, resume: false, cancel: true });
    expect(SessionController.allowed('paused')).toEqual({ pause: false, resume: true, cancel: true });
    expect(SessionController.allowed('interrupted')).toEqual({ pause: false, resume: true, cancel: true });
    expect(SessionController.allowed('completed')).toEqual({ pause: false, resume: false, cancel: false });
    expect(SessionController.allowed('cancelled')).toEqual({ pause: false, resume: false, cancel: false });
  });
});
