import { afterEach, describe, expect, it } from 'vitest';
import type { AgentRunContext } from '@interthought/agent';
import { TestAgent } from './support/test-agents.js';
import { createHarness, storedEvents, turns, until, untilStatus, type Harness, type HarnessOptions } from './support/harness.js';
import { RecordingPeer } from './support/recording-peer.js';
import { refusal } from './support/refusal.js';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.manager.shutdown();
  harness = undefined;
});

/** Streams "tick " tokens forever (until aborted), recording its signal. */
function tickingAgent(signals: AbortSignal[] = []): TestAgent {
  return new TestAgent('ticking', async (context: AgentRunContext) => {
    signals.push(context.signal);
    const writer = context.sink.start('thought');
    for (;;) await writer.write('tick ');
  });
}

function setup(options: HarnessOptions = {}): Harness {
  harness = createHarness({ agents: [tickingAgent()], ...options });
  return harness;
}

async function contentOf(h: Harness, sessionId: string): Promise<string> {
  return (await h.manager.snapshot(sessionId))!.steps[0]?.content ?? '';
}

async function tickingSession(h: Harness): Promise<string> {
  const { sessionId } = await h.manager.create({ task: 'tick', agent: 'ticking' });
  await until(async () => (await contentOf(h, sessionId)).length > 0, 'the first token');
  return sessionId;
}

describe('pause and resume', () => {
  it('holds the agent after its current token while paused and lets it go on resume', async () => {
    const h = setup();
    const sessionId = await tickingSession(h);
    await h.manager.pause(sessionId);
    expect((await h.manager.snapshot(sessionId))!.session.status).toBe('paused');
    await turns(5);
    const held = await contentOf(h, sessionId);
    await turns(50);
    expect(await contentOf(h, sessionId)).toBe(held);
    await h.manager.resume(sessionId);
    await until(async () => (await contentOf(h, sessionId)).length > held.length, 'more tokens after resume');
    expect((await h.manager.snapshot(sessionId))!.session.status).toBe('running');
  });

  it('refuses to pause a paused session with INVALID_STATE saying what is allowed', async () => {
    const h = setup();
    const sessionId = await tickingSession(h);
    await h.manager.pause(sessionId);
    const error = await refusal(() => h.manager.pause(sessionId), 'INVALID_STATE');
    expect(error.message).toContain('it is paused');
    expect(error.message).toContain('pause applies to: running');
  });

  it('refuses to resume a running session with INVALID_STATE', async () => {
    const h = setup();
    const sessionId = await tickingSession(h);
    const error = await refusal(() => h.manager.resume(sessionId), 'INVALID_STATE');
    expect(error.message).toContain('it is running');
    expect(error.message).toContain('resume applies to: paused, interrupted');
  });

  it('refuses to pause or resume a completed session', async () => {
    const h = setup();
    const { sessionId } = await h.manager.create({ task: 'x' });
    await untilStatus(h.manager, sessionId, 'completed');
    await refusal(() => h.manager.pause(sessionId), 'INVALID_STATE');
    await refusal(() => h.manager.resume(sessionId), 'INVALID_STATE');
  });

  it('refuses status requests for an unknown session with SESSION_NOT_FOUND', async () => {
    const h = setup();
    await refusal(() => h.manager.pause('nope'), 'SESSION_NOT_FOUND');
    await refusal(() => h.manager.resume('nope'), 'SESSION_NOT_FOUND');
    await refusal(() => h.manager.cancel('nope'), 'SESSION_NOT_FOUND');
  });
});

describe('cancel', () => {
  it('aborts the run and the session emits nothing more', async () => {
    const signals: AbortSignal[] = [];
    const h = setup({ agents: [tickingAgent(signals)] });
    const sessionId = await tickingSession(h);
    await h.manager.cancel(sessionId);
    expect(signals[0]!.aborted).toBe(true);
    const seq = (await h.manager.snapshot(sessionId))!.seq;
    await turns(20);
    expect((await h.manager.snapshot(sessionId))!.seq).toBe(seq);
    const events = await storedEvents(h.store, sessionId);
    expect(events[events.length - 1]).toMatchObject({ type: 'session.status', status: 'cancelled', seq });
    expect((await h.store.getSession(sessionId))!.info.status).toBe('cancelled');
  });

  it('cancels a paused session, releasing its held writer', async () => {
    const signals: AbortSignal[] = [];
    const h = setup({ agents: [tickingAgent(signals)] });
    const sessionId = await tickingSession(h);
    await h.manager.pause(sessionId);
    await turns(5);
    await h.manager.cancel(sessionId);
    expect(signals[0]!.aborted).toBe(true);
    expect((await h.manager.snapshot(sessionId))!.session.status).toBe('cancelled');
  });

  it('refuses to cancel a finished session, which stays open to corrections', async () => {
    const h = setup();
    const { sessionId } = await h.manager.create({ task: 'x' });
    await untilStatus(h.manager, sessionId, 'completed');
    const error = await refusal(() => h.manager.cancel(sessionId), 'INVALID_STATE');
    expect(error.message).toContain('it is completed');
    expect(error.message).toContain('correct a step to run it again');
    expect((await h.manager.snapshot(sessionId))!.session.status).toBe('completed');
    const firstStep = (await h.manager.snapshot(sessionId))!.chain[0]!;
    await h.manager.correct({ sessionId, stepId: firstStep, content: 'Again.' });
    await untilStatus(h.manager, sessionId, 'completed');
  });

  it('refuses to cancel twice', async () => {
    const h = setup();
    const { sessionId } = await h.manager.create({ task: 'x', options: { tokenDelayMs: 1_000 } });
    await h.manager.cancel(sessionId);
    const error = await refusal(() => h.manager.cancel(sessionId), 'INVALID_STATE');
    expect(error.message).toContain('already cancelled');
    await refusal(() => h.manager.resume(sessionId), 'INVALID_STATE');
  });
});

describe('the requester of a status change', () => {
  it('gets its copy with requestId instead of the plain one when subscribed; others get the plain one', async () => {
    const h = setup();
    const sessionId = await tickingSession(h);
    const requester = new RecordingPeer('requester');
    const other = new RecordingPeer('other');
    await h.manager.subscribe(sessionId, { peer: requester });
    await h.manager.subscribe(sessionId, { peer: other });
    await h.manager.pause(sessionId, { peer: requester, requestId: 'p-1' });
    await turns(3);
    const mine = requester.ofType('session.status');
    const theirs = other.ofType('session.status');
    expect(mine).toHaveLength(1);
    expect(mine[0]).toMatchObject({ status: 'paused', requestId: 'p-1' });
    expect(theirs).toHaveLength(1);
    expect(theirs[0]).not.toHaveProperty('requestId');
    expect({ ...mine[0], requestId: undefined }).toEqual({ ...theirs[0], requestId: undefined });
  });

  it('gets the event with requestId even when not subscribed', async () => {
    const h = setup();
    const sessionId = await tickingSession(h);
    const requester = new RecordingPeer('requester');
    await h.manager.cancel(sessionId, { peer: requester, requestId: 'c-1' });
    await turns(3);
    expect(requester.messages).toEqual([expect.objectContaining({ type: 'session.status', status: 'cancelled', requestId: 'c-1', sessionId })]);
  });

  it('is answered only after the event is written', async () => {
    const h = setup();
    const sessionId = await tickingSession(h);
    const requester = new RecordingPeer('requester');
    await h.manager.pause(sessionId, { peer: requester, requestId: 'p-1' });
    expect(requester.frames).toEqual([]);
    await turns(2);
    const [answer] = requester.messages;
    expect((await storedEvents(h.store, sessionId)).some((event) => event.seq === answer?.seq)).toBe(true);
  });
});
