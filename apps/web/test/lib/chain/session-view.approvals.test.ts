import { flushSync } from 'svelte';
import { describe, expect, it } from 'vitest';
import { SessionView } from '$lib/chain/session-view.svelte.js';
import { EventLog, ManualFrames } from '../../support/session-events.js';
import { watchRuns } from '../../support/watch.svelte.js';

function setup() {
  const log = new EventLog();
  const frames = new ManualFrames();
  const session = new SessionView(log.sessionId, { schedule: frames.schedule });
  session.loadSnapshot(log.emptySnapshot());
  let delivered = 0;
  const deliver = () => {
    for (const event of log.since(delivered)) session.enqueue(event);
    delivered = log.events.length;
    flushSync(() => frames.run());
  };
  return { log, session, deliver };
}

describe('SessionView: approvals', () => {
  it('knows the tool call the session waits on, until it is decided', () => {
    const { log, session, deliver } = setup();
    log.step('thought', 'I need 15% of 240.');
    const call = log.step('tool_call', '{"expression":"240 * 15%"}', { tool: 'calculator' });
    deliver();
    const view = session.view(call)!;
    expect(session.awaitsDecision(view)).toBe(false);
    expect(session.awaitingStep).toBeUndefined();

    log.askApproval(call);
    deliver();
    expect(view.approval).toEqual({ state: 'pending', requestedAt: expect.any(String) });
    expect(session.info?.status).toBe('waiting');
    expect(session.awaitsDecision(view)).toBe(true);
    expect(session.awaitingStep).toBe(view);

    log.decide(call, 'approved', 'c-1');
    log.status('running');
    deliver();
    expect(view.approval).toMatchObject({ state: 'approved', by: 'c-1' });
    expect(session.awaitsDecision(view)).toBe(false);
    expect(session.awaitingStep).toBeUndefined();
  });

  it('no longer offers a decision on a call an earlier correction superseded', () => {
    const { log, session, deliver } = setup();
    const thought = log.step('thought', 'I need 15% of 240.');
    const call = log.step('tool_call', '{"expression":"240 * 15%"}', { tool: 'calculator' });
    log.askApproval(call);
    deliver();
    expect(session.awaitsDecision(session.view(call)!)).toBe(true);
    log.correct(thought, 'I need 25% of 240.');
    log.status('running');
    deliver();
    expect(session.view(call)?.status).toBe('invalidated');
    expect(session.awaitsDecision(session.view(call)!)).toBe(false);
  });

  it('shows a waiting call from a snapshot too (a reload while it waits)', () => {
    const { log, session, deliver } = setup();
    const call = log.step('tool_call', '{"expression":"240 * 15%"}', { tool: 'calculator' });
    log.askApproval(call);
    deliver();
    const reloaded = new SessionView(log.sessionId, { schedule: new ManualFrames().schedule });
    reloaded.loadSnapshot({ session: session.state.session, steps: [...session.state.steps.values()], chain: [...session.state.chain], seq: session.state.seq });
    expect(reloaded.awaitingStep?.stepId).toBe(call);
    expect(reloaded.awaitsDecision(reloaded.view(call)!)).toBe(true);
  });

  it('re-renders only the decided step when a decision arrives', () => {
    const { log, session, deliver } = setup();
    const thought = log.step('thought', 'I need 15% of 240.');
    const call = log.step('tool_call', '{"expression":"240 * 15%"}', { tool: 'calculator' });
    log.askApproval(call);
    deliver();
    const thoughtRuns = watchRuns(() => session.view(thought)!.approval);
    const callRuns = watchRuns(() => session.view(call)!.approval);
    log.decide(call, 'rejected', 'c-1', 'No.');
    deliver();
    expect(callRuns.runs()).toBe(2);
    expect(thoughtRuns.runs()).toBe(1);
    thoughtRuns.stop();
    callRuns.stop();
  });
});
