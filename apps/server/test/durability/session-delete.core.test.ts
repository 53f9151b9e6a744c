import { afterEach, describe, expect, it } from 'vitest';
import type { AgentRunContext } from '@interthought/agent';
import { streamStep } from '../../src/agents/stream-text.js';
import { MemoryEventStore } from '../../src/store/memory-event-store.js';
import { createHarness, storedEvents, turns, until, untilStatus, type Harness, type HarnessOptions } from '../core/support/harness.js';
import { RecordingPeer } from '../core/support/recording-peer.js';
import { RecordingStore } from '../support/recording-store.js';
import { refusal } from '../core/support/refusal.js';
import { TestAgent } from '../core/support/test-agents.js';

const harnesses: Harness[] = [];
afterEach(async () => {
  for (const harness of harnesses.splice(0)) await harness.manager.shutdown();
});

function setup(options: HarnessOptions = {}): Harness {
  const harness = createHarness(options);
  harnesses.push(harness);
  return harness;
}

/** Streams one thought forever, one token per turn, keeping its run's context for the test. */
function endlessAgent(): TestAgent {
  return new TestAgent('endless', async (context: AgentRunContext) => {
    await streamStep(context.sink, 'thought', 'Thinking.');
    const writer = context.sink.start('action');
    for (;;) await writer.write('more ');
  });
}

/** A memory store whose `deleteSession` fails (a locked or read-only database). */
class UndeletableStore extends MemoryEventStore {
  override async deleteSession(): Promise<void> {
    throw new Error('database is locked');
  }
}

describe('SessionManager.delete', () => {
  it('writes and sends pending events first, then gives every subscriber session.deleted at the last seq + 1 as its last frame', async () => {
    const { manager, store } = setup({ agents: [endlessAgent()] });
    const { sessionId } = await manager.create({ task: 'never ends', agent: 'endless' });
    const watcher = new RecordingPeer('watcher');
    await manager.subscribe(sessionId, { peer: watcher }, 0);
    await until(() => watcher.events(sessionId).length >= 6, 'a few events');
    const requester = new RecordingPeer('requester');
    // Whatever the agent appended since the last tick is still queued: it must go out before the deletion.
    await manager.delete(sessionId, { peer: requester, requestId: 'del-1' });

    const events = watcher.events(sessionId);
    const last = events.at(-1)!;
    expect(events.map((event) => event.seq)).toEqual(Array.from({ length: events.length }, (_, i) => i + 1));
    expect(last).toEqual({ type: 'session.deleted', sessionId, seq: events.length, at: expect.any(String) });
    expect(requester.messages).toEqual([{ ...last, requestId: 'del-1' }]);
    expect(await store.getSession(sessionId)).toBeUndefined();
    expect(await storedEvents(store, sessionId)).toEqual([]);
  });

  it('aborts the run, so nothing more is written or sent for the session', async () => {
    const agent = endlessAgent();
    const { manager, store } = setup({ agents: [agent], store: new RecordingStore() });
    const recording = store as RecordingStore;
    const { sessionId } = await manager.create({ task: 'never ends', agent: 'endless' });
    const watcher = new RecordingPeer();
    await manager.subscribe(sessionId, { peer: watcher }, 0);
    await until(() => watcher.events(sessionId).length >= 4, 'a few events');
    await manager.delete(sessionId);
    const framesAfter = watcher.frames.length;
    const writesAfter = recording.batches;
    expect(agent.runs[0]?.signal.aborted).toBe(true);
    await turns(20);
    expect(watcher.frames).toHaveLength(framesAfter);
    expect(recording.batches).toBe(writesAfter);
    expect(manager.activeSessionCount).toBe(0);
  });

  it('gives a requester who also watches exactly one session.deleted, the copy with its requestId', async () => {
    const { manager } = setup();
    const { sessionId } = await manager.create({ task: 'finish first' });
    await untilStatus(manager, sessionId, 'completed');
    const both = new RecordingPeer();
    await manager.subscribe(sessionId, { peer: both });
    await manager.delete(sessionId, { peer: both, requestId: 'r' });
    const deleted = both.ofType('session.deleted');
    expect(deleted).toEqual([expect.objectContaining({ requestId: 'r', sessionId })]);
    expect(both.messages.at(-1)?.type).toBe('session.deleted');
    expect(manager.subscriptionCount(both)).toBe(0);
  });

  it('tells each watcher its subscription ended, so a connection stops counting it', async () => {
    const { manager } = setup();
    const { sessionId } = await manager.create({ task: 'finish first' });
    await untilStatus(manager, sessionId, 'completed');
    const watcher = new RecordingPeer();
    await manager.subscribe(sessionId, { peer: watcher });
    expect(manager.isSubscribed(watcher, sessionId)).toBe(true);
    expect(manager.subscriptionCount(watcher)).toBe(1);
    await manager.delete(sessionId);
    // The core keeps the subscription counts the transport's limits read.
    expect(manager.isSubscribed(watcher, sessionId)).toBe(false);
    expect(manager.subscriptionCount(watcher)).toBe(0);
  });

  it('deletes paused and interrupted sessions alike', async () => {
    const harness = setup({ agents: [endlessAgent()] });
    const { manager, store } = harness;
    const paused = (await manager.create({ task: 'pause me', agent: 'endless' })).sessionId;
    await turns(5);
    await manager.pause(paused);
    await untilStatus(manager, paused, 'paused');
    await manager.delete(paused);
    expect(await store.getSession(paused)).toBeUndefined();

    const running = (await manager.create({ task: 'interrupt me', agent: 'endless' })).sessionId;
    await turns(5);
    await manager.shutdown();
    const next = harness.restart();
    harnesses.push(next);
    await next.manager.ready;
    expect(next.manager.recoveredSessionIds).toEqual([running]);
    await next.manager.delete(running);
    expect(await store.getSession(running)).toBeUndefined();
  });

  it('deletes a session that is only in the store without reading its log', async () => {
    const recording = new RecordingStore();
    const first = setup({ store: recording });
    const { sessionId } = await first.manager.create({ task: 'finish, then restart' });
    await untilStatus(first.manager, sessionId, 'completed');
    await first.manager.shutdown();
    const second = first.restart();
    harnesses.push(second);
    const reads = recording.logReads;
    const lastSeq = (await recording.getSession(sessionId))!.lastSeq;
    const requester = new RecordingPeer();
    await second.manager.delete(sessionId, { peer: requester, requestId: 'r' });
    expect(recording.logReads).toBe(reads);
    expect(requester.messages).toEqual([{ type: 'session.deleted', sessionId, seq: lastSeq + 1, at: expect.any(String), requestId: 'r' }]);
    expect(await storedEvents(recording, sessionId)).toEqual([]);
    expect((await second.manager.list({ limit: 10 })).sessions).toEqual([]);
  });

  it('answers every later request on a deleted session with SESSION_NOT_FOUND', async () => {
    const { manager } = setup();
    const { sessionId } = await manager.create({ task: 'finish first' });
    await untilStatus(manager, sessionId, 'completed');
    const stepId = (await manager.snapshot(sessionId))!.chain[0]!;
    await manager.delete(sessionId);
    const peer = new RecordingPeer();
    await refusal(() => manager.delete(sessionId), 'SESSION_NOT_FOUND');
    await refusal(() => manager.subscribe(sessionId, { peer }), 'SESSION_NOT_FOUND');
    await refusal(() => manager.unsubscribe(sessionId, peer), 'SESSION_NOT_FOUND');
    await refusal(() => manager.correct({ sessionId, stepId, content: 'too late' }), 'SESSION_NOT_FOUND');
    await refusal(() => manager.resume(sessionId), 'SESSION_NOT_FOUND');
    await refusal(() => manager.cancel(sessionId), 'SESSION_NOT_FOUND');
    expect(await manager.snapshot(sessionId)).toBeUndefined();
    expect(peer.frames).toEqual([]);
  });

  it('refuses an unknown session with SESSION_NOT_FOUND and sends nothing', async () => {
    const { manager } = setup();
    const peer = new RecordingPeer();
    await refusal(() => manager.delete('no-such-session', { peer, requestId: 'r' }), 'SESSION_NOT_FOUND');
    expect(peer.frames).toEqual([]);
  });

  it('leaves the session untouched, run and watchers included, when the store cannot delete it', async () => {
    const harness = setup({ store: new UndeletableStore(), agents: [endlessAgent()] });
    const { manager } = harness;
    const { sessionId } = await manager.create({ task: 'stay', agent: 'endless' });
    const watcher = new RecordingPeer();
    await manager.subscribe(sessionId, { peer: watcher }, 0);
    await turns(5);
    const error = await refusal(() => manager.delete(sessionId), 'INTERNAL');
    expect(error.message).toContain('could not be deleted');
    // The store's failure is reported as well as refused.
    expect(harness.takeErrors()).toEqual([`deleteSession failed for session ${sessionId}: database is locked`]);
    const before = watcher.events(sessionId).length;
    await until(() => watcher.events(sessionId).length > before + 3, 'the run to go on');
    expect(watcher.ofType('session.deleted')).toEqual([]);
    expect((await manager.snapshot(sessionId))?.session.status).toBe('running');
  });

  it('refuses while the server is shutting down', async () => {
    const { manager } = setup();
    const { sessionId } = await manager.create({ task: 'finish first' });
    await untilStatus(manager, sessionId, 'completed');
    void manager.shutdown();
    await refusal(() => manager.delete(sessionId), 'INTERNAL');
  });
});
