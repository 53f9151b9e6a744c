import type { SessionStatus } from '@interthought/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import type { AgentRunContext } from '@interthought/agent';
import { MemoryEventStore } from '../../src/store/memory-event-store.js';
import { streamStep } from '../../src/agents/stream-text.js';
import { FIVE_KINDS, TestAgent, scriptBehaviour } from './support/test-agents.js';
import { createHarness, fold, storedEvents, turns, until, untilStatus, type Harness, type HarnessOptions } from './support/harness.js';
import { RecordingPeer } from './support/recording-peer.js';
import { RecordingStore } from '../support/recording-store.js';
import { refusal } from './support/refusal.js';

const harnesses: Harness[] = [];
afterEach(async () => {
  for (const h of harnesses.splice(0)) await h.manager.shutdown();
});

function setup(options: HarnessOptions = {}): Harness {
  const h = createHarness(options);
  harnesses.push(h);
  return h;
}

/** A new manager on the same store, once its start-up recovery is done. */
async function restart(h: Harness, options: HarnessOptions = {}): Promise<Harness> {
  const next = h.restart(options);
  harnesses.push(next);
  await next.manager.ready;
  return next;
}

/**
 * Streams the five-kind script but stops in the middle of the first thought until the test
 * lets it go, like an agent caught mid-sentence by a crash. Later runs stream the script.
 */
function interruptibleAgent(stopped: { at: boolean }): TestAgent {
  return new TestAgent('script', async (context: AgentRunContext, runIndex) => {
    if (runIndex > 0 || context.chain.length > 0) return scriptBehaviour(FIVE_KINDS)(context);
    await streamStep(context.sink, 'thought', 'First thought.');
    const writer = context.sink.start('action');
    await writer.write('Half an ');
    stopped.at = true;
    for (;;) await writer.write('');
  });
}

async function crashMidRun(options: HarnessOptions = {}): Promise<{ h: Harness; sessionId: string }> {
  const stopped = { at: false };
  const h = setup({ agents: [interruptibleAgent(stopped)], ...options });
  const { sessionId } = await h.manager.create({ task: 'crash me' });
  await until(() => stopped.at, 'the agent to stop mid-step');
  // What survives a crash is what was written; shutdown writes it and leaves the status as is.
  await h.manager.shutdown();
  return { h, sessionId };
}

describe('session summaries', () => {
  it('writes each status and revision change to the store after the events that made it', async () => {
    const store = new RecordingStore();
    const h = setup({ store });
    const { sessionId } = await h.manager.create({ task: 'x' });
    await untilStatus(h.manager, sessionId, 'completed');
    await h.manager.correct({ sessionId, stepId: (await h.manager.snapshot(sessionId))!.chain[1]!, content: 'Plan B.' });
    await turns(1);
    // Cancelled while it regenerates.
    await h.manager.cancel(sessionId);
    await turns(2);
    const updates = store.journal.flatMap((entry) => (entry.op === 'update' ? [`${entry.status}@${entry.revision}`] : []));
    expect(updates).toEqual(['running@0', 'completed@0', 'running@1', 'cancelled@1']);
    // Each summary follows the batch holding the event that changed it.
    const firstUpdate = store.journal.findIndex((entry) => entry.op === 'update');
    expect(store.journal.slice(0, firstUpdate).some((entry) => entry.op === 'write')).toBe(true);
    expect((await store.getSession(sessionId))!.info).toMatchObject({ status: 'cancelled', revision: 1 });
  });

  it('lists sessions newest first with their current summaries', async () => {
    const h = setup();
    const first = (await h.manager.create({ task: 'first' })).sessionId;
    const second = (await h.manager.create({ task: 'second' })).sessionId;
    await h.manager.pause(second);
    const page = await h.manager.list({ limit: 10 });
    expect(page.sessions.map((info) => [info.sessionId, info.status])).toEqual([
      [second, 'paused'],
      [first, 'running'],
    ]);
  });
});

describe('startup recovery', () => {
  it('marks sessions left running by the previous process as interrupted, at lastSeq + 1', async () => {
    const { h, sessionId } = await crashMidRun();
    const lastSeq = (await h.store.getSession(sessionId))!.lastSeq;
    expect((await h.store.getSession(sessionId))!.info.status).toBe('running');
    const next = await restart(h);
    expect(next.manager.recoveredSessionIds).toEqual([sessionId]);
    expect((await h.store.getSession(sessionId))!.info.status).toBe('interrupted');
    expect(await h.store.readEvents(sessionId, lastSeq)).toEqual([
      { type: 'session.status', sessionId, seq: lastSeq + 1, at: expect.any(String), status: 'interrupted' },
    ]);
    expect((await next.manager.snapshot(sessionId))!.session.status).toBe('interrupted');
  });

  // Every store answers the status query now (it is part of EventStore), so paging through the
  // whole list at start-up, the fallback for stores without it, is gone.
  it('finds running sessions with the store\'s status query, without paging through every session', async () => {
    const store = new RecordingStore();
    const { h, sessionId } = await crashMidRun({ store });
    const asked: string[] = [];
    const byStatus = store.listSessionsByStatus.bind(store);
    const page = store.listSessions.bind(store);
    Object.defineProperty(store, 'listSessionsByStatus', {
      value: (status: SessionStatus) => {
        asked.push(`listSessionsByStatus(${status})`);
        return byStatus(status);
      },
    });
    Object.defineProperty(store, 'listSessions', {
      value: (options: { limit: number; before?: string }) => {
        asked.push('listSessions');
        return page(options);
      },
    });
    const next = await restart(h);
    expect(next.manager.recoveredSessionIds).toEqual([sessionId]);
    // Then the waiting sessions, for the deadlines of their pending approvals.
    expect(asked).toEqual(['listSessionsByStatus(running)', 'listSessionsByStatus(waiting)']);
  });

  it('leaves finished and paused sessions alone', async () => {
    const h = setup();
    const done = (await h.manager.create({ task: 'done' })).sessionId;
    await untilStatus(h.manager, done, 'completed');
    const paused = (await h.manager.create({ task: 'paused' })).sessionId;
    await h.manager.pause(paused);
    await h.manager.shutdown();
    const next = await restart(h);
    expect(next.manager.recoveredSessionIds).toEqual([]);
    expect((await next.manager.snapshot(done))!.session.status).toBe('completed');
    expect((await next.manager.snapshot(paused))!.session.status).toBe('paused');
  });
});

describe('lazy loading', () => {
  it('rebuilds a session from the store the first time it is touched, equal to what was live', async () => {
    const h = setup();
    const { sessionId } = await h.manager.create({ task: 'x' });
    await untilStatus(h.manager, sessionId, 'completed');
    await h.manager.correct({ sessionId, stepId: (await h.manager.snapshot(sessionId))!.chain[2]!, content: '{"a":1,"b":2}' });
    await untilStatus(h.manager, sessionId, 'completed');
    const live = await h.manager.snapshot(sessionId);
    await h.manager.shutdown();
    const next = await restart(h);
    expect(await next.manager.snapshot(sessionId)).toEqual(live);
  });

  it('rebuilds from the stored snapshot and the events kept after it', async () => {
    const h = setup({ store: new MemoryEventStore({ maxEventsPerSession: 10 }) });
    const { sessionId } = await h.manager.create({ task: 'x' });
    await untilStatus(h.manager, sessionId, 'completed');
    const live = await h.manager.snapshot(sessionId);
    expect(await h.store.firstKeptSeq(sessionId)).toBeGreaterThan(1);
    await h.manager.shutdown();
    expect(await (await restart(h)).manager.snapshot(sessionId)).toEqual(live);
  });

  it('answers SESSION_NOT_FOUND for an id neither in memory nor in the store', async () => {
    const h = setup();
    await refusal(() => h.manager.correct({ sessionId: 'never', stepId: 'x', content: 'y' }), 'SESSION_NOT_FOUND');
    expect(await h.manager.snapshot('never')).toBeUndefined();
  });

  it('marks a stored running session it did not recover as interrupted when loading it', async () => {
    const h = setup();
    const info = { sessionId: 'orphan', task: 't', agent: 'script', status: 'running' as const, revision: 0, createdAt: '2025-01-01T00:00:00.000Z' };
    await h.manager.ready;
    await h.store.createSession({ info, options: {}, lastSeq: 0 });
    const events = [{ type: 'session.status' as const, sessionId: 'orphan', seq: 1, at: info.createdAt, status: 'running' as const }];
    await h.store.appendBatch({ events, frames: events.map((event) => JSON.stringify(event)) });
    expect((await h.manager.snapshot('orphan'))!.session.status).toBe('interrupted');
  });

  it('drops finished, unwatched sessions beyond its cache and reloads them on demand', async () => {
    const store = new RecordingStore();
    const h = setup({ store, idleSessionCacheSize: 0 });
    const { sessionId } = await h.manager.create({ task: 'x' });
    // Watched through the store: a snapshot would load the session back into memory itself.
    await until(async () => (await store.getSession(sessionId))?.info.status === 'completed', 'the completed summary to be stored');
    await turns(2);
    const reads = store.logReads;
    const before = await h.manager.snapshot(sessionId);
    expect(store.logReads).toBe(reads + 1);
    expect(before!.session.status).toBe('completed');
    const result = await h.manager.correct({ sessionId, stepId: before!.chain[0]!, content: 'Again.' });
    await untilStatus(h.manager, sessionId, 'completed');
    expect((await h.manager.snapshot(sessionId))!.session.revision).toBe(result.revision);
    expect(fold(await storedEvents(store, sessionId)).chain).toEqual((await h.manager.snapshot(sessionId))!.chain);
  });

  it('keeps a watched session in memory and streams to its subscriber', async () => {
    const store = new RecordingStore();
    const h = setup({ store, idleSessionCacheSize: 0 });
    const { sessionId } = await h.manager.create({ task: 'x' });
    await untilStatus(h.manager, sessionId, 'completed');
    const peer = new RecordingPeer();
    await h.manager.subscribe(sessionId, { peer });
    await turns(3);
    const reads = store.logReads;
    await h.manager.correct({ sessionId, stepId: (await h.manager.snapshot(sessionId))!.chain[0]!, content: 'Again.' });
    await untilStatus(h.manager, sessionId, 'completed');
    expect(store.logReads).toBe(reads);
    expect(peer.ofType('step.corrected')).toHaveLength(1);
    expect(peer.events(sessionId).at(-1)).toMatchObject({ type: 'session.status', status: 'completed' });
  });
});

describe('resuming after a restart', () => {
  it('resumes an interrupted session from the head of its chain', async () => {
    const { h, sessionId } = await crashMidRun();
    const next = await restart(h);
    const agent = next.agents.get('script') as TestAgent;
    const peer = new RecordingPeer();
    await next.manager.resume(sessionId, { peer, requestId: 'resume-1' });
    await untilStatus(next.manager, sessionId, 'completed');
    // The agent object outlives the "restart" in this test; its last run is the resumed one.
    expect(agent.runs).toHaveLength(2);
    const context = agent.runs[1]!;
    expect(context.chain.map((step) => [step.kind, step.status, step.content])).toEqual([
      ['thought', 'completed', 'First thought.'],
      ['action', 'completed', 'Half an '],
    ]);
    const snapshot = (await next.manager.snapshot(sessionId))!;
    expect(snapshot.steps.map((step) => step.kind)).toEqual(['thought', 'action', 'tool_call', 'observation', 'final_answer']);
    expect(peer.messages).toEqual([expect.objectContaining({ type: 'session.status', status: 'running', requestId: 'resume-1' })]);
  });

  it('keeps a paused session paused after a restart; resume starts a run from the chain head', async () => {
    const stopped = { at: false };
    const h = setup({ agents: [interruptibleAgent(stopped)] });
    const { sessionId } = await h.manager.create({ task: 'x' });
    await until(() => stopped.at, 'the agent to stop mid-step');
    await h.manager.pause(sessionId);
    await h.manager.shutdown();
    const next = await restart(h);
    expect((await next.manager.snapshot(sessionId))!.session.status).toBe('paused');
    await next.manager.resume(sessionId);
    await untilStatus(next.manager, sessionId, 'completed');
    const runs = (next.agents.get('script') as TestAgent).runs;
    expect(runs).toHaveLength(2);
    expect(runs[1]!.chain.map((step) => step.content)).toEqual(['First thought.', 'Half an ']);
    expect((await next.manager.snapshot(sessionId))!.chain).toHaveLength(5);
  });

  it('accepts a correction of an interrupted session and runs it again', async () => {
    const { h, sessionId } = await crashMidRun();
    const next = await restart(h);
    const [thought] = (await next.manager.snapshot(sessionId))!.chain;
    await next.manager.correct({ sessionId, stepId: thought!, content: 'A fresh start.' });
    expect((await next.manager.snapshot(sessionId))!.session.status).toBe('running');
    await untilStatus(next.manager, sessionId, 'completed');
    expect((await next.manager.snapshot(sessionId))!.session.revision).toBe(1);
  });
});
