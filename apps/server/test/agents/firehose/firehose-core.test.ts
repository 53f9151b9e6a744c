import { applyEvent, createSessionState, type SessionEvent } from '@interthought/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { AgentRegistry } from '@interthought/agent';
import { createFirehoseAgent } from '../../../src/agents/firehose/firehose-agent.js';
import { readDeltaStamp } from '../../../src/agents/firehose/firehose-text.js';
import { MemoryEventStore } from '../../../src/store/memory-event-store.js';
import { SessionManager } from '../../../src/core/session-manager.js';
import type { Frame } from '../../../src/core/fanout/frame.js';
import type { Peer } from '../../../src/core/fanout/peer.js';
import { ToolRegistry } from '../../../src/tools/tool-registry.js';

/** A subscriber that keeps every frame the core sends it, parsed. */
class RecordingPeer implements Peer {
  readonly id = 'peer-1';
  readonly frames: Record<string, unknown>[] = [];
  send(frame: Frame): void {
    this.frames.push(JSON.parse(frame.text) as Record<string, unknown>);
  }
  sendLive(frame: Frame): void {
    this.send(frame);
  }
  events(): SessionEvent[] {
    return this.frames.filter((frame) => typeof frame.seq === 'number' && typeof frame.sessionId === 'string') as SessionEvent[];
  }
}

/** Wait (bounded) until `ready` holds; the core works on later ticks. */
async function until(ready: () => boolean, what: string): Promise<void> {
  for (let turn = 0; turn < 2_000; turn++) {
    if (ready()) return;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error(`Gave up waiting for ${what}.`);
}

function deltaIndices(events: SessionEvent[]): number[] {
  return events.flatMap((event) => (event.type === 'step.delta' ? [readDeltaStamp(event.text)?.index ?? -1] : []));
}

let manager: SessionManager | undefined;

function startManager(): SessionManager {
  manager = new SessionManager({
    store: new MemoryEventStore(),
    agents: new AgentRegistry('firehose').register(createFirehoseAgent()),
    tools: new ToolRegistry(),
  });
  return manager;
}

afterEach(async () => {
  await manager?.shutdown();
  manager = undefined;
});

describe('firehose agent in the session core', () => {
  it('keeps batched deltas in order and each step equal to its deltas joined', async () => {
    const sessions = startManager();
    const peer = new RecordingPeer();
    const info = await sessions.create({ task: 'firehose rate=max count=2500 step=1000 size=32', agent: 'firehose', options: { tokenDelayMs: 0 } });
    await sessions.subscribe(info.sessionId, { peer }, 0);
    await until(() => peer.events().some((event) => event.type === 'session.status' && event.status === 'completed'), 'the session to complete');

    const events = peer.events();
    expect(events.map((event) => event.seq)).toEqual(events.map((_, i) => i + 1));
    expect(deltaIndices(events).slice(0, 2_500)).toEqual([...Array(2_500).keys()]);
    const state = events.reduce(applyEvent, createSessionState(info));
    const thoughts = [...state.steps.values()].filter((step) => step.kind === 'thought');
    expect(thoughts.map((step) => step.content.length)).toEqual([32_000, 32_000, 16_000]);
    expect(thoughts.every((step) => step.status === 'completed')).toBe(true);
  });

  it('regenerates after a correction of its streaming step, and the aborted run writes nothing more', async () => {
    const sessions = startManager();
    const peer = new RecordingPeer();
    const info = await sessions.create({ task: 'firehose rate=5000 count=100000 step=100 size=32', agent: 'firehose', options: { tokenDelayMs: 0 } });
    await sessions.subscribe(info.sessionId, { peer }, 0);
    await until(() => deltaIndices(peer.events()).length > 150, 'deltas of the second step');

    const streaming = peer.events().filter((event) => event.type === 'step.started').at(-1);
    if (streaming?.type !== 'step.started') throw new Error('no step started');
    const accepted = await sessions.correct({ sessionId: info.sessionId, stepId: streaming.step.stepId, content: 'corrected' });
    const afterInvalidation = () => {
      const events = peer.events();
      const at = events.findIndex((event) => event.type === 'steps.invalidated');
      return at < 0 ? [] : events.slice(at + 1);
    };
    await until(() => deltaIndices(afterInvalidation()).length >= 5, 'five regenerated deltas');
    await sessions.cancel(info.sessionId);

    const after = afterInvalidation();
    expect(after.some((event) => event.type === 'step.delta' && event.stepId === streaming.step.stepId)).toBe(false);
    const regenerated = after.find((event) => event.type === 'step.started');
    expect(regenerated?.type === 'step.started' && regenerated.step.parentId === accepted.newStepId).toBe(true);
    // Every thought step up to the corrected one is on the chain, so the stream goes on after them.
    const next = (streaming.step.index + 1) * 100;
    expect(deltaIndices(after).slice(0, 5)).toEqual([next, next + 1, next + 2, next + 3, next + 4]);
  });
});
