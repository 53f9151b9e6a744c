import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AgentRunContext } from '@interthought/agent';
import { streamStep } from '../../src/agents/stream-text.js';
import { openSqliteEventStore, type SqliteEventStore } from '../../src/store/sqlite-event-store.js';
import { FIVE_KINDS, TestAgent, scriptBehaviour } from './support/test-agents.js';
import { createHarness, fold, storedEvents, until, untilStatus, type Harness } from './support/harness.js';
import { RecordingPeer } from './support/recording-peer.js';

/** The five-kind script, stopping mid-action on the first run as if the process died there. */
function stoppingAgent(stopped: { at: boolean }): TestAgent {
  return new TestAgent('script', async (context: AgentRunContext, runIndex) => {
    if (runIndex > 0) return scriptBehaviour(FIVE_KINDS)(context);
    await streamStep(context.sink, 'thought', 'First thought.');
    const writer = context.sink.start('action');
    await writer.write('Half an ');
    stopped.at = true;
    for (;;) await writer.write('');
  });
}

let directory: string;
const opened: { store: SqliteEventStore; harness: Harness }[] = [];
let processes = 0;

beforeEach(() => {
  directory = mkdtempSync(join(tmpdir(), 'interthought-core-'));
});

afterEach(async () => {
  for (const { store, harness } of opened.splice(0)) {
    await harness.manager.shutdown();
    await store.close();
  }
  rmSync(directory, { recursive: true, force: true });
});

/** A process: a SessionManager on the SQLite file, its start-up recovery done. `stop` is what survives a crash: written events only. */
async function startProcess(agent: TestAgent, retainEventsPerSession?: number) {
  const store = openSqliteEventStore(join(directory, 'sessions.db'), retainEventsPerSession === undefined ? {} : { retainEventsPerSession });
  // Ids must stay unique across processes, as nanoid's are.
  const prefix = `p${++processes}`;
  let ids = 0;
  const harness = createHarness({ store, agents: [agent], newId: () => `${prefix}-${++ids}` });
  const entry = { store, harness };
  opened.push(entry);
  await harness.manager.ready;
  return {
    ...harness,
    async stop(): Promise<void> {
      await harness.manager.shutdown();
      await store.close();
      opened.splice(opened.indexOf(entry), 1);
    },
  };
}

describe('SessionManager on a real SQLite file, across a restart', () => {
  it('marks the run in flight interrupted, then resumes it from the head of its chain', async () => {
    const stopped = { at: false };
    const agent = stoppingAgent(stopped);
    const first = await startProcess(agent);
    const { sessionId } = await first.manager.create({ task: 'survive a restart' });
    await until(() => stopped.at, 'the agent to stop mid-step');
    const before = (await first.manager.snapshot(sessionId))!;
    await first.stop();

    const second = await startProcess(agent);
    expect(second.manager.recoveredSessionIds).toEqual([sessionId]);
    const recovered = (await second.manager.snapshot(sessionId))!;
    expect(recovered.session.status).toBe('interrupted');
    expect(recovered.seq).toBe(before.seq + 1);
    expect(recovered.steps).toEqual(before.steps);

    const peer = new RecordingPeer();
    await second.manager.subscribe(sessionId, { peer }, before.seq);
    expect(peer.events(sessionId)).toMatchObject([{ type: 'session.status', status: 'interrupted', seq: before.seq + 1 }]);
    await second.manager.resume(sessionId);
    await untilStatus(second.manager, sessionId, 'completed');
    const done = (await second.manager.snapshot(sessionId))!;
    expect(done.steps.map((step) => step.kind)).toEqual(['thought', 'action', 'tool_call', 'observation', 'final_answer']);
    expect(fold(await storedEvents(second.store, sessionId)).chain).toEqual(done.chain);
    expect(peer.events(sessionId).map((event) => event.seq)).toEqual(Array.from({ length: done.seq - before.seq }, (_, index) => before.seq + 1 + index));
  });

  it('rebuilds a corrected session from a trimmed log and its snapshot, and serves old cursors a snapshot', async () => {
    const agent = new TestAgent('script', scriptBehaviour(FIVE_KINDS));
    const first = await startProcess(agent, 8);
    const { sessionId } = await first.manager.create({ task: 'keep little' });
    await untilStatus(first.manager, sessionId, 'completed');
    await first.manager.correct({ sessionId, stepId: (await first.manager.snapshot(sessionId))!.chain[1]!, content: 'Plan B.' });
    await untilStatus(first.manager, sessionId, 'completed');
    const live = (await first.manager.snapshot(sessionId))!;
    await first.stop();

    const second = await startProcess(agent, 8);
    expect(second.manager.recoveredSessionIds).toEqual([]);
    expect(await second.manager.snapshot(sessionId)).toEqual(live);
    const behind = new RecordingPeer();
    await second.manager.subscribe(sessionId, { peer: behind, requestId: 'r' }, 1);
    expect(behind.messages).toEqual([expect.objectContaining({ type: 'session.snapshot', requestId: 'r', seq: live.seq })]);
  });
});
