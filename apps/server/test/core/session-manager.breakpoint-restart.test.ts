import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSessionState, pausedAtBreakpoint, type SessionSnapshotData, type Step } from '@interthought/protocol';
import { AgentRegistry } from '@interthought/agent';
import { createDemoAgent } from '../../src/agents/demo/index.js';
import { createDefaultTools } from '../../src/tools/index.js';
import { startSessionManager, type SessionManager } from '../../src/core/session-manager.js';
import { openSqliteEventStore, type SqliteEventStore } from '../../src/store/sqlite-event-store.js';

/*
 * A breakpoint pause holds no run of the stopped agent (PROTOCOL.md §25.5): it never expires into
 * `interrupted`, and it survives a restart as `paused`, resumable from the step it stopped at.
 */

let directory: string;
const opened: { store: SqliteEventStore; manager: SessionManager }[] = [];

beforeEach(() => {
  directory = mkdtempSync(join(tmpdir(), 'interthought-breakpoints-'));
});

afterEach(async () => {
  for (const { store, manager } of opened.splice(0)) {
    await manager.shutdown();
    await store.close();
  }
  rmSync(directory, { recursive: true, force: true });
});

/** A process: a SessionManager with the demo agent on the SQLite file; `stop` keeps what it wrote. */
async function startProcess(pausedRunTtlMs?: number) {
  const store = openSqliteEventStore(join(directory, 'sessions.db'));
  const agents = new AgentRegistry('demo');
  agents.register(createDemoAgent());
  const errors: string[] = [];
  const manager = await startSessionManager({
    store,
    agents,
    tools: createDefaultTools(),
    defaultTokenDelayMs: 0,
    ...(pausedRunTtlMs === undefined ? {} : { pausedRunTtlMs }),
    reportError: (context, error) => errors.push(`${context}: ${String(error)}`),
  });
  const entry = { store, manager };
  opened.push(entry);
  return {
    manager,
    errors,
    async stop(): Promise<void> {
      await manager.shutdown();
      await store.close();
      opened.splice(opened.indexOf(entry), 1);
    },
  };
}

/** Poll the snapshot until `check` holds (runs go on through the event loop and the store). */
async function until(manager: SessionManager, sessionId: string, check: (snapshot: SessionSnapshotData) => boolean, what: string): Promise<SessionSnapshotData> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const snapshot = await manager.snapshot(sessionId);
    if (snapshot !== undefined && check(snapshot)) return snapshot;
    if (Date.now() > deadline) throw new Error(`Gave up waiting for ${what} (status ${snapshot?.session.status})`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

function chainOf(snapshot: SessionSnapshotData): Step[] {
  return snapshot.chain.map((id) => snapshot.steps.find((step) => step.stepId === id)!);
}

const BEFORE_CALCULATOR = { tokenDelayMs: 0, breakpoints: [{ kind: 'tool_call' as const, tool: 'calculator' }] };

describe('a session paused at a breakpoint', () => {
  it('does not expire into interrupted, where a paused run does', async () => {
    const process = await startProcess(1);
    const stopped = await process.manager.create({ task: 'What is 12 * 7?', agent: 'demo', options: BEFORE_CALCULATOR });
    await until(process.manager, stopped.sessionId, (snapshot) => snapshot.session.status === 'paused', 'the stop');
    // The control: a run paused by the user, with the same clock, is stopped and interrupted.
    const held = await process.manager.create({ task: 'What is 12 * 7?', agent: 'demo', options: { tokenDelayMs: 50 } });
    await until(process.manager, held.sessionId, (snapshot) => snapshot.steps.length > 0, 'the first token');
    await process.manager.pause(held.sessionId);
    await until(process.manager, held.sessionId, (snapshot) => snapshot.session.status === 'interrupted', 'the paused run to expire');

    const snapshot = (await process.manager.snapshot(stopped.sessionId))!;
    expect(snapshot.session).toMatchObject({ status: 'paused', detail: 'Stopped at a breakpoint: before calculator runs' });
    await process.manager.resume(stopped.sessionId);
    const done = await until(process.manager, stopped.sessionId, (s) => s.session.status === 'completed', 'the answer');
    expect(chainOf(done).at(-1)?.content).toContain('84');
    expect(process.errors).toEqual([]);
  });

  it('stays paused across a restart on the same SQLite file, and resume there runs the tool to the answer', async () => {
    const first = await startProcess();
    const { sessionId } = await first.manager.create({ task: 'What is 12 * 7?', agent: 'demo', options: BEFORE_CALCULATOR });
    const paused = await until(first.manager, sessionId, (snapshot) => snapshot.session.status === 'paused', 'the stop');
    const call = chainOf(paused).at(-1)!;
    expect(call).toMatchObject({ kind: 'tool_call', tool: 'calculator', breakpoint: { index: 0 } });
    await first.stop();

    const second = await startProcess();
    expect(second.manager.recoveredSessionIds).toEqual([]);
    const reloaded = (await second.manager.snapshot(sessionId))!;
    expect(reloaded.session).toMatchObject({ status: 'paused', detail: 'Stopped at a breakpoint: before calculator runs' });
    expect(pausedAtBreakpoint(createSessionState(reloaded))?.stepId).toBe(call.stepId);
    expect(chainOf(reloaded).map((step) => step.kind)).toEqual(['thought', 'action', 'tool_call']);

    await second.manager.resume(sessionId);
    const done = await until(second.manager, sessionId, (snapshot) => snapshot.session.status === 'completed', 'the answer');
    expect(chainOf(done).map((step) => step.kind)).toEqual(['thought', 'action', 'tool_call', 'observation', 'final_answer']);
    expect(chainOf(done)[3]).toMatchObject({ tool: 'calculator', result: { value: 84 } });
    expect(chainOf(done).at(-1)?.content).toContain('84');
    expect(second.errors).toEqual([]);
  });

  it('stopped at its final answer, stays paused across a restart, and resume ends the run there: completed, nothing written', async () => {
    const first = await startProcess();
    const { sessionId } = await first.manager.create({ task: 'What is 12 * 7?', agent: 'demo', options: { tokenDelayMs: 0, breakpoints: [{ kind: 'final_answer' }] } });
    const paused = await until(first.manager, sessionId, (snapshot) => snapshot.session.status === 'paused', 'the stop');
    expect(paused.session.detail).toBe('Stopped at a breakpoint: after the final answer');
    await first.stop();

    const second = await startProcess();
    await second.manager.resume(sessionId);
    const done = await until(second.manager, sessionId, (snapshot) => snapshot.session.status === 'completed', 'the end');
    expect(done.steps).toHaveLength(paused.steps.length);
    expect(chainOf(done).at(-1)).toMatchObject({ kind: 'final_answer', content: chainOf(paused).at(-1)!.content });
  });
});
