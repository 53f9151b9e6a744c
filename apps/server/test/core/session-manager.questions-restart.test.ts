import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AgentRegistry } from '@interthought/agent';
import { startSessionManager, type SessionManager } from '../../src/core/session-manager.js';
import { openSqliteEventStore, type SqliteEventStore } from '../../src/store/sqlite-event-store.js';
import { createDefaultTools } from '../../src/tools/index.js';
import { ASKED, askerAgent, askerAnswer } from './service-contract/asking-agents.js';
import { RecordingPeer } from './support/recording-peer.js';
import { storedEvents, until } from './support/harness.js';

/*
 * A waiting question across a restart on a real SQLite file (PROTOCOL.md §25.1: it survives "as
 * it is"; §25.2: the deadline counts from `input.requested.at` and holds across restarts). A
 * process is a SessionManager on the file, stopped cleanly; the next one starts on the same file.
 */

let directory: string;
const running: { manager: SessionManager; store: SqliteEventStore }[] = [];
let processes = 0;

beforeEach(() => {
  directory = mkdtempSync(join(tmpdir(), 'interthought-questions-'));
});

afterEach(async () => {
  for (const { manager, store } of running.splice(0)) {
    await manager.shutdown();
    await store.close();
  }
  rmSync(directory, { recursive: true, force: true });
});

/** A process on the file; `aheadMs` sets its clock ahead of the real one, as if it started that much later. */
async function startProcess(aheadMs = 0) {
  const store = openSqliteEventStore(join(directory, 'sessions.db'));
  const prefix = `p${++processes}`;
  let ids = 0;
  const errors: string[] = [];
  const manager = await startSessionManager({
    store,
    agents: new AgentRegistry('asker').register(askerAgent()),
    tools: createDefaultTools(),
    defaultTokenDelayMs: 0,
    newId: () => `${prefix}-${++ids}`,
    now: () => new Date(Date.now() + aheadMs),
    reportError: (context, error) => errors.push(`${context}: ${String(error)}`),
  });
  const entry = { manager, store };
  running.push(entry);
  return {
    manager,
    store,
    errors,
    async stop(): Promise<void> {
      await manager.shutdown();
      await store.close();
      running.splice(running.indexOf(entry), 1);
    },
  };
}

/** An `asker` session on `manager`, waiting for its answer: its id and the call's step id. */
async function askingSession(manager: SessionManager, options: Record<string, unknown> = {}) {
  const peer = new RecordingPeer('creator');
  const { sessionId } = await manager.create({ task: 'Replace a number', options }, { peer });
  await until(() => peer.ofType('session.status').some((frame) => frame.status === 'waiting'), 'the question to be asked');
  const stepId = peer.ofType('input.requested')[0]!.stepId as string;
  return { sessionId, stepId };
}

describe('a waiting question across a restart on the same SQLite file', () => {
  it('is still waiting (not interrupted) and answerable after the restart, and the answer lets the agent finish', async () => {
    const first = await startProcess();
    const { sessionId, stepId } = await askingSession(first.manager);
    await first.stop();

    const second = await startProcess();
    expect(second.manager.recoveredSessionIds).toEqual([]);
    const waiting = (await second.manager.snapshot(sessionId))!;
    expect(waiting.session).toMatchObject({ status: 'waiting', detail: `Waiting for your answer: ${ASKED.question}` });
    expect(waiting.steps.find((step) => step.stepId === stepId)?.question).toMatchObject({ state: 'pending' });

    const answerer = new RecordingPeer('answerer');
    await second.manager.provideInput({ sessionId, stepId, text: '20', by: 'u-after' }, { peer: answerer, requestId: 'r' });
    await until(() => answerer.messages.length > 0, 'the answer to its request');
    expect(answerer.messages[0]).toMatchObject({ type: 'input.resolved', requestId: 'r', outcome: 'answered', by: 'u-after' });
    await until(async () => (await second.manager.snapshot(sessionId))?.session.status === 'completed', 'the run after the answer to finish');
    const done = (await second.manager.snapshot(sessionId))!;
    const chain = done.chain.map((id) => done.steps.find((step) => step.stepId === id)!);
    expect(chain.map((step) => step.kind)).toEqual(['thought', 'tool_call', 'observation', 'final_answer']);
    expect(chain[2]).toMatchObject({ content: '20', by: 'u-after', result: { answer: '20', by: 'u-after', choice: 0 } });
    expect(chain[3]?.content).toBe(askerAnswer('20'));
    expect(second.errors).toEqual([]);
  });

  it('keeps the deadline across the restart, from the question\'s own time: a process starting after it closes the question unanswered', async () => {
    const first = await startProcess();
    const { sessionId, stepId } = await askingSession(first.manager, { inputTimeoutMs: 60_000 });
    await first.stop();

    // Ten minutes later by its clock: the minute counted from `input.requested.at` is long over, so
    // it closes the question at once (a clock armed afresh at start would wait a whole minute).
    const second = await startProcess(10 * 60_000);
    const watcher = new RecordingPeer('list');
    await second.manager.watchList({ peer: watcher }, 10);
    await until(
      () => watcher.ofType('sessions.changed').some((frame) => (frame.session as { status?: string }).status === 'completed'),
      'the timed-out question to let the session finish',
      200_000,
    );
    const events = await storedEvents(second.store, sessionId);
    const resolved = events.filter((event) => event.type === 'input.resolved');
    expect(resolved).toEqual([expect.objectContaining({ stepId, outcome: 'timed_out', by: 'server' })]);
    const done = (await second.manager.snapshot(sessionId))!;
    const observation = done.steps.find((step) => step.kind === 'observation')!;
    expect(observation).toMatchObject({ content: 'The user did not answer in time.', result: { unanswered: true, reason: 'timed out' } });
    expect(second.errors).toEqual([]);
  });
});
