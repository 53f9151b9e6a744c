import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SessionSnapshotData } from '@interthought/protocol';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSqliteEventStore, type SqliteEventStore } from '../../src/store/sqlite-event-store.js';
import { Gates } from './service-contract/contract-agents.js';
import { CallCounts, counterAnswer, delegatingAgents, joinedAnswer } from './service-contract/delegating-agents.js';
import { createHarness, until, untilStatus, type Harness } from './support/harness.js';

let directory: string;
const opened: { store: SqliteEventStore; harness: Harness }[] = [];
let processes = 0;

beforeEach(() => {
  directory = mkdtempSync(join(tmpdir(), 'interthought-subagents-'));
});

afterEach(async () => {
  for (const { store, harness } of opened.splice(0)) {
    await harness.manager.shutdown();
    await store.close();
  }
  rmSync(directory, { recursive: true, force: true });
});

/**
 * A process on the SQLite file with the delegating agents. `stop` leaves what a crash leaves: the
 * written events only, the session still `running` in the store (nobody marks it on the way out).
 */
async function startProcess(gates: Gates, calls: CallCounts) {
  const store = openSqliteEventStore(join(directory, 'sessions.db'));
  const prefix = `p${++processes}`;
  let ids = 0;
  const harness = createHarness({ store, agents: delegatingAgents(gates, calls), newId: () => `${prefix}-${++ids}` });
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

function statusesByTask(snapshot: SessionSnapshotData): Record<string, string> {
  return Object.fromEntries((snapshot.subagents ?? []).map((info) => [info.task, info.status]));
}

describe('sub-agents across a restart', () => {
  it('interrupts the running sub-agents with the session; resume runs them on and gives the finished one its stored answer', async () => {
    const calls = new CallCounts();
    const first = await startProcess(new Gates(), calls);
    const { sessionId } = await first.manager.create({ task: 'wait alpha; beta; wait gamma', agent: 'delegator', options: { tokenDelayMs: 0 } });
    await until(async () => {
      const snapshot = await first.manager.snapshot(sessionId);
      const statuses = snapshot === undefined ? {} : statusesByTask(snapshot);
      const thoughts = snapshot?.steps.filter((step) => step.scope !== undefined && step.kind === 'thought' && step.status === 'completed').length ?? 0;
      return statuses.beta === 'completed' && thoughts === 3;
    }, 'beta to finish while alpha and gamma are held');
    await first.stop();

    // The next process: its gates are open, so the held sub-agents can finish once resumed.
    const gates = new Gates();
    gates.of('wait alpha').open();
    gates.of('wait gamma').open();
    const second = await startProcess(gates, calls);
    expect(second.manager.recoveredSessionIds).toEqual([sessionId]);
    const interrupted = (await second.manager.snapshot(sessionId))!;
    expect(interrupted.session.status).toBe('interrupted');
    expect(statusesByTask(interrupted)).toEqual({ 'wait alpha': 'interrupted', beta: 'completed', 'wait gamma': 'interrupted' });

    await second.manager.resume(sessionId);
    await untilStatus(second.manager, sessionId, 'completed');
    const done = (await second.manager.snapshot(sessionId))!;
    expect(statusesByTask(done)).toEqual({ 'wait alpha': 'completed', beta: 'completed', 'wait gamma': 'completed' });
    const answer = done.steps.find((step) => step.stepId === done.chain.at(-1))!;
    expect(answer.content).toBe(
      joinedAnswer(['wait alpha', 'beta', 'wait gamma'].map((task) => counterAnswer(task, [{ content: `Working on ${task}.` }]))),
    );
    // The held ones ran on from their scopes' chains (their thought is not written twice); beta was not called again.
    expect(done.steps.filter((step) => step.kind === 'thought' && step.scope !== undefined)).toHaveLength(3);
    expect(calls.of('beta')).toBe(1);
    expect(calls.of('wait alpha')).toBe(2);
    expect(calls.of('wait gamma')).toBe(2);
  });

  it('keeps a waiting approval inside a scope across a restart: approving it then runs the sub-agent on and joins the batch', async () => {
    const calls = new CallCounts();
    const first = await startProcess(new Gates(), calls);
    const { sessionId } = await first.manager.create({ task: 'tool alpha; beta', agent: 'delegator', options: { tokenDelayMs: 0, approve: ['adder'] } });
    await untilStatus(first.manager, sessionId, 'waiting');
    const waiting = (await first.manager.snapshot(sessionId))!;
    expect(statusesByTask(waiting)).toEqual({ 'tool alpha': 'waiting', beta: 'completed' });
    const call = waiting.steps.find((step) => step.approval?.state === 'pending')!;
    await first.stop();

    const second = await startProcess(new Gates(), calls);
    expect(second.manager.recoveredSessionIds).toEqual([]);
    expect((await second.manager.snapshot(sessionId))!.session.status).toBe('waiting');
    await second.manager.approve({ sessionId, stepId: call.stepId, by: 'u-ok' });
    await untilStatus(second.manager, sessionId, 'completed');
    const done = (await second.manager.snapshot(sessionId))!;
    expect(statusesByTask(done)).toEqual({ 'tool alpha': 'completed', beta: 'completed' });
    expect(done.steps.find((step) => step.stepId === done.chain.at(-1))?.content).toContain('Joined:');
    expect(calls.of('beta')).toBe(1);
  });
});
