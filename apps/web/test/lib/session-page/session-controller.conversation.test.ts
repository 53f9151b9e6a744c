import { applyEvents, createSessionState, toSnapshot, type InterthoughtClient, type SessionInfo } from '@interthought/protocol';
import { describe, expect, it } from 'vitest';
import { Announcer } from '$lib/app/announcer.svelte.js';
import { OwnConnections } from '$lib/app/own-connections.js';
import { Toaster } from '$lib/app/toaster.svelte.js';
import { MessageDraft } from '$lib/conversation/message-draft.svelte.js';
import { I18n } from '$lib/i18n/index.js';
import { SessionController } from '$lib/session-page/session-controller.svelte.js';
import { EventLog, ManualFrames } from '../../support/session-events.js';
import { useConnectedClient, type ScriptedServer } from '../../support/scripted-server.js';
import { until } from '../../support/app.js';

let server: ScriptedServer;
let client: InterthoughtClient;
useConnectedClient((started, connected) => {
  server = started;
  client = connected;
});

/** A controller following `log`'s session (answered from a snapshot of it), and what it opened. */
async function following(log: EventLog) {
  const toaster = new Toaster();
  const frames = new ManualFrames();
  const opened: SessionInfo[] = [];
  const controller = new SessionController(
    {
      client,
      i18n: new I18n({ languages: ['en'] }),
      toaster,
      announcer: new Announcer(),
      ownConnections: new OwnConnections(null),
      schedule: frames.schedule,
      openSession: (session) => void opened.push(session),
    },
    log.sessionId,
  );
  const previous = server.answer;
  server.answer = (frame, send) => {
    if (frame.type === 'session.subscribe') send({ type: 'session.snapshot', requestId: frame.id, ...toSnapshot(applyEvents(createSessionState(log.info), log.events)) });
    else previous(frame, send);
  };
  controller.start();
  await until(() => controller.view.phase === 'ready');
  return { controller, toaster, opened, frames };
}

describe('SessionController conversations', () => {
  it('sends a follow-up without a mode once the agent is done, shown as sending until the server accepts it', async () => {
    const log = new EventLog();
    log.step('final_answer', '36.');
    log.status('completed');
    let accept: () => void = () => undefined;
    server.answer = (frame, send) => {
      if (frame.type === 'session.message') accept = () => send({ type: 'message.accepted', requestId: frame.id, sessionId: log.sessionId, stepId: 'm1', queued: false });
    };
    const { controller } = await following(log);
    const draft = new MessageDraft();
    draft.setMode('queue');
    draft.setText(' Add 10 to that. ');
    const sending = controller.sendMessage(draft);
    expect(draft.text).toBe('');
    expect(controller.view.outgoing.messages.map((message) => message.text)).toEqual(['Add 10 to that.']);

    const frame = await server.next('session.message');
    expect(frame).toMatchObject({ sessionId: log.sessionId, text: 'Add 10 to that.' });
    expect(frame).not.toHaveProperty('mode');
    accept();
    await sending;
    // Accepted, but not folded in yet: it stays until its step arrives.
    expect(controller.view.outgoing.messages.map((message) => message.stepId)).toEqual(['m1']);
    controller.dispose();
  });

  it('sends the chosen mode while the agent runs', async () => {
    const log = new EventLog();
    log.step('thought', 'Multiply.');
    server.answer = (frame, send) => {
      if (frame.type === 'session.message') send({ type: 'message.accepted', requestId: frame.id, sessionId: log.sessionId, stepId: 'm1', queued: true });
    };
    const { controller } = await following(log);
    const draft = new MessageDraft();
    draft.setMode('queue');
    draft.setText('Then halve it.');
    await controller.sendMessage(draft);
    expect(await server.next('session.message')).toMatchObject({ text: 'Then halve it.', mode: 'queue' });
    controller.dispose();
  });

  it('puts a refused message back in the box with the reason, and takes it off the page', async () => {
    const log = new EventLog();
    log.status('completed');
    server.answer = (frame, send) => {
      if (frame.type === 'session.message') send({ type: 'error', requestId: frame.id, code: 'RATE_LIMITED', message: 'Too many runs started.' });
    };
    const { controller } = await following(log);
    const draft = new MessageDraft();
    draft.setText('Add 10 to that.');
    await controller.sendMessage(draft);
    expect(draft.text).toBe('Add 10 to that.');
    expect(draft.error).toEqual({ code: 'RATE_LIMITED', message: 'Too many runs started.' });
    expect(controller.view.outgoing.messages).toEqual([]);
    controller.dispose();
  });

  it('forks from a step and opens the fork; a refusal is a toast', async () => {
    const log = new EventLog();
    const thought = log.step('thought', 'Multiply.');
    log.status('completed');
    const fork: SessionInfo = { ...log.info, sessionId: 'fork', status: 'idle', forkedFrom: { sessionId: log.sessionId, stepId: thought } };
    server.answer = (frame, send) => {
      if (frame.type !== 'session.fork') return;
      if (frame.stepId === thought) send({ type: 'session.created', requestId: frame.id, session: fork });
      else send({ type: 'error', requestId: frame.id, code: 'STEP_NOT_FOUND', message: 'No step nope.' });
    };
    const { controller, opened, toaster } = await following(log);
    await controller.fork(controller.view.view(thought)!);
    expect(await server.next('session.fork')).toMatchObject({ sessionId: log.sessionId, stepId: thought });
    expect(opened).toEqual([fork]);

    await controller.fork({ stepId: 'nope' } as never);
    expect(opened).toHaveLength(1);
    expect(toaster.toasts[0]).toMatchObject({ tone: 'error', title: 'No step nope.' });
    controller.dispose();
  });
});
