import { describe, expect, it } from 'vitest';
import { SessionView } from '$lib/chain/session-view.svelte.js';
import { EventLog, ManualFrames } from '../../support/session-events.js';

function viewOf(log: EventLog) {
  const frames = new ManualFrames();
  const view = new SessionView(log.sessionId, { schedule: frames.schedule });
  view.loadSnapshot(log.emptySnapshot());
  let delivered = 0;
  const deliver = () => {
    for (const event of log.since(delivered)) view.enqueue(event);
    delivered = log.events.length;
    frames.run();
  };
  return { view, deliver };
}

describe('SessionView conversations', () => {
  it('lists queued messages until their step reaches the chain', () => {
    const log = new EventLog();
    log.step('thought', 'Multiply.');
    const steer = log.queueMessage('Show your working.', 'steer');
    const later = log.queueMessage('Add 10 to that.', 'queue');
    const { view, deliver } = viewOf(log);
    deliver();
    expect(view.queued.map((message) => [message.stepId, message.text, message.mode])).toEqual([
      [steer, 'Show your working.', 'steer'],
      [later, 'Add 10 to that.', 'queue'],
    ]);

    log.userMessage('Show your working.', steer);
    deliver();
    expect(view.queued.map((message) => message.stepId)).toEqual([later]);
    expect(view.layout.path).toContain(steer);
    expect(view.view(steer)?.kind).toBe('user_message');
  });

  it('drops an accepted outgoing message once the state holds it, on the chain or queued', () => {
    const log = new EventLog();
    const { view, deliver } = viewOf(log);
    const direct = view.outgoing.add('Add 10 to that.', 'steer');
    const waiting = view.outgoing.add('Then halve it.', 'queue');
    const refused = view.outgoing.add('Nope.', 'steer');
    view.outgoing.accepted(direct.localId, 'm1', (stepId) => view.holdsMessage(stepId));
    view.outgoing.accepted(waiting.localId, 'm2', (stepId) => view.holdsMessage(stepId));
    view.outgoing.remove(refused.localId);
    expect(view.outgoing.messages.map((message) => message.text)).toEqual(['Add 10 to that.', 'Then halve it.']);

    log.userMessage('Add 10 to that.', 'm1');
    deliver();
    expect(view.outgoing.messages.map((message) => message.stepId)).toEqual(['m2']);
    // The queue event names the step id the acceptance gave: from then on the queue shows it.
    log.events.push({ type: 'message.queued', sessionId: log.sessionId, seq: log.events.length + 1, at: '2025-01-01T11:00:00.000Z', stepId: 'm2', text: 'Then halve it.', mode: 'queue' });
    deliver();
    expect(view.outgoing.messages).toEqual([]);
    expect(view.queued.map((message) => message.stepId)).toEqual(['m2']);
  });

  it('takes messages in every status but waiting, and none once deleted', () => {
    const log = new EventLog();
    const { view, deliver } = viewOf(log);
    expect(view.acceptsMessages).toBe(true);
    for (const status of ['completed', 'idle', 'cancelled', 'paused'] as const) {
      log.status(status);
      deliver();
      expect(view.acceptsMessages).toBe(true);
    }
    log.status('waiting');
    deliver();
    expect(view.acceptsMessages).toBe(false);
    log.status('running');
    log.deleted();
    deliver();
    expect(view.acceptsMessages).toBe(false);
  });

  it('finds where a fork came from: the copy of the step it was forked at', () => {
    const at = '2025-01-01T10:00:01.000Z';
    const view = new SessionView('fork', { schedule: new ManualFrames().schedule });
    view.loadSnapshot({
      session: { sessionId: 'fork', task: 'What is 15% of 240?', agent: 'demo', status: 'idle', revision: 0, createdAt: at, forkedFrom: { sessionId: 'src', stepId: 'b' } },
      steps: [
        { stepId: 'c1', parentId: null, index: 0, kind: 'thought', status: 'completed', content: 'Multiply.', revision: 0, copiedFrom: { sessionId: 'src', stepId: 'a' } },
        { stepId: 'c2', parentId: 'c1', index: 1, kind: 'action', status: 'completed', content: 'Use the calculator.', revision: 0, copiedFrom: { sessionId: 'src', stepId: 'b' } },
      ],
      chain: ['c1', 'c2'],
      seq: 2,
    });
    expect(view.forkPoint).toEqual({ sessionId: 'src', stepId: 'b', index: 1 });
    expect(view.info?.status).toBe('idle');
    expect(view.acceptsMessages).toBe(true);
  });
});
