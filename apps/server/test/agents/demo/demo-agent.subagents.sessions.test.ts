import { afterEach, describe, expect, it } from 'vitest';
import type { SessionEvent, SessionSnapshotData, Step } from '@interthought/protocol';
import { AgentRegistry, type Agent } from '@interthought/agent';
import { createDemoAgent } from '../../../src/agents/demo/index.js';
import { SessionManager } from '../../../src/core/session-manager.js';
import { MemoryEventStore } from '../../../src/store/memory-event-store.js';
import { createDefaultTools } from '../../../src/tools/index.js';
import { fold, storedEvents, turns, until } from '../../core/support/harness.js';
import { RecordingPeer } from '../../core/support/recording-peer.js';

/*
 * The demo agent's multi-part tasks on the real session core (PROTOCOL.md §24): the server's own
 * `delegate` tool runs each part as a demo sub-agent in a scope of its own; a correction inside one
 * scope re-runs that sub-agent only, and the parent joins again.
 */

const EN = 'What is 17 * 23 + 4? Also, what is 15% of 240?';
const ZH = '17 乘以 23 加 4 是多少？另外，240 的 15% 是多少？';

let manager: SessionManager | undefined;
let store: MemoryEventStore;
afterEach(async () => {
  await manager?.shutdown();
  manager = undefined;
});

/** The real demo agent, counting its runs by task (a sub-agent's task is its part), with the built-in tools; `on` an existing store is a restart. */
function setup(on?: MemoryEventStore): { sessions: SessionManager; runs: Map<string, number> } {
  const demo = createDemoAgent();
  const runs = new Map<string, number>();
  const counted: Agent = {
    ...demo,
    run: (context) => {
      runs.set(context.task, (runs.get(context.task) ?? 0) + 1);
      return demo.run(context);
    },
  };
  store = on ?? new MemoryEventStore();
  manager = new SessionManager({ store, agents: new AgentRegistry('demo').register(counted), tools: createDefaultTools() });
  return { sessions: manager, runs };
}

async function snapshotOf(sessions: SessionManager, sessionId: string): Promise<SessionSnapshotData> {
  const snapshot = await sessions.snapshot(sessionId);
  if (!snapshot) throw new Error(`No session ${sessionId}`);
  return snapshot;
}

async function untilDone(sessions: SessionManager, sessionId: string, maxTurns?: number): Promise<void> {
  await until(async () => ['completed', 'failed'].includes((await snapshotOf(sessions, sessionId)).session.status), `session ${sessionId} to finish`, maxTurns);
  await turns(2);
}

function stepsOf(snapshot: SessionSnapshotData, ids: readonly string[]): Step[] {
  return ids.map((id) => snapshot.steps.find((step) => step.stepId === id)!);
}

/** The session's own chain and each sub-agent's, by its task. */
function chains(snapshot: SessionSnapshotData): { root: Step[]; scopes: Map<string, { scope: string; status: string; chain: Step[] }> } {
  const scopes = new Map((snapshot.subagents ?? []).map((info) => [info.task, { scope: info.scope, status: info.status, chain: stepsOf(snapshot, info.chain) }]));
  return { root: stepsOf(snapshot, snapshot.chain), scopes };
}

/** A session of `task`, followed from its first event, run to its end. */
async function delegated(sessions: SessionManager, task: string): Promise<{ sessionId: string; peer: RecordingPeer }> {
  const peer = new RecordingPeer();
  const { sessionId } = await sessions.create({ task, options: { tokenDelayMs: 0 } });
  await sessions.subscribe(sessionId, { peer }, 0);
  await untilDone(sessions, sessionId);
  return { sessionId, peer };
}

/** Where a scope's first and last step started in the event stream. */
function spanOf(events: readonly SessionEvent[], scope: string): { first: number; last: number } {
  const at = events.flatMap((event, index) => (event.type === 'step.started' && event.step.scope === scope ? [index] : []));
  return { first: at[0] ?? -1, last: at.at(-1) ?? -1 };
}

/** Correct the scope's calculator call with `expression` (its `nth` one) and run the session to its end again. */
async function correctCalculator(sessions: SessionManager, sessionId: string, scopeChain: readonly Step[], expression: string, nth = 0): Promise<number> {
  const call = scopeChain.filter((step) => step.kind === 'tool_call' && step.tool === 'calculator')[nth]!;
  const mark = (await storedEvents(store, sessionId)).length;
  await sessions.correct({ sessionId, stepId: call.stepId, content: JSON.stringify({ expression }) });
  await untilDone(sessions, sessionId);
  return mark;
}

describe('demo agent on the session core: a multi-part task in parallel sub-agents', () => {
  it('runs each part in a scope of its own, streamed interleaved, and joins their answers', async () => {
    const { sessions, runs } = setup();
    const { sessionId, peer } = await delegated(sessions, EN);
    const snapshot = await snapshotOf(sessions, sessionId);
    expect(snapshot.session.status).toBe('completed');

    const events = peer.events(sessionId);
    expect(events.filter((event) => event.type === 'subagent.started')).toEqual([
      expect.objectContaining({ depth: 1, name: 'part 1', agent: 'demo', task: 'What is 17 * 23 + 4?' }),
      expect.objectContaining({ depth: 1, name: 'part 2', agent: 'demo', task: 'What is 15% of 240?' }),
    ]);
    const { root, scopes } = chains(snapshot);
    expect(root.map((step) => [step.kind, step.tool])).toEqual([
      ['thought', undefined],
      ['tool_call', 'delegate'],
      ['tool_call', 'delegate'],
      ['observation', 'delegate'],
      ['observation', 'delegate'],
      ['final_answer', undefined],
    ]);
    const part1 = scopes.get('What is 17 * 23 + 4?')!;
    const part2 = scopes.get('What is 15% of 240?')!;
    // The scopes are the batch's calls, in order.
    expect([part1.scope, part2.scope]).toEqual([root[1]!.stepId, root[2]!.stepId]);
    for (const part of [part1, part2]) {
      expect(part.status).toBe('completed');
      expect(part.chain.map((step) => step.kind)).toEqual(['thought', 'action', 'tool_call', 'observation', 'final_answer']);
      expect(part.chain.every((step) => step.scope === part.scope)).toBe(true);
      expect(part.chain[2]).toMatchObject({ tool: 'calculator' });
    }
    expect(part1.chain.at(-1)!.content).toContain('395');
    expect(part2.chain.at(-1)!.content).toContain('36');
    // The observations are the sub-agents' answers; the joined answer has both results, in order.
    expect(root[3]!.content).toBe(part1.chain.at(-1)!.content);
    expect(root[4]!.content).toBe(part2.chain.at(-1)!.content);
    expect(root[3]!.result).toMatchObject({ subagent: part1.scope, status: 'completed' });
    expect(root[5]!.content).toMatch(/part 1 .*395[\s\S]*part 2 .*36/u);

    // Both sub-agents streamed at the same time: each started before the other one's last step.
    const one = spanOf(events, part1.scope);
    const two = spanOf(events, part2.scope);
    expect(two.first).toBeLessThan(one.last);
    expect(one.first).toBeLessThan(two.last);
    expect(runs.get(EN)).toBe(1);
    expect(runs.get('What is 17 * 23 + 4?')).toBe(1);
    expect(runs.get('What is 15% of 240?')).toBe(1);
    // The stored log folds to what the session holds, and is what the subscriber received.
    expect([...fold(await storedEvents(store, sessionId)).steps.values()]).toEqual(snapshot.steps);
    expect(events).toEqual(await storedEvents(store, sessionId));
  });

  it('re-runs only part 1 after a correction inside its scope, and joins again without running part 2', async () => {
    const { sessions, runs } = setup();
    const { sessionId } = await delegated(sessions, EN);
    const before = chains(await snapshotOf(sessions, sessionId));
    const part2Before = before.scopes.get('What is 15% of 240?')!;

    const mark = await correctCalculator(sessions, sessionId, before.scopes.get('What is 17 * 23 + 4?')!.chain, '17 * 23 + 5');
    const snapshot = await snapshotOf(sessions, sessionId);
    expect(snapshot.session.status).toBe('completed');
    const { root, scopes } = chains(snapshot);
    const part1 = scopes.get('What is 17 * 23 + 4?')!;
    expect(part1.chain.map((step) => step.kind)).toEqual(['thought', 'action', 'tool_call', 'observation', 'final_answer']);
    expect(part1.chain[2]).toMatchObject({ status: 'corrected', content: JSON.stringify({ expression: '17 * 23 + 5' }) });
    expect(part1.chain.at(-1)!.content).toContain('396');

    // The parent regenerated from its batch: the same calls, new observations, a new joined answer.
    expect(root.slice(0, 3).map((step) => step.stepId)).toEqual(before.root.slice(0, 3).map((step) => step.stepId));
    expect(root.slice(3).map((step) => step.kind)).toEqual(['observation', 'observation', 'final_answer']);
    expect(root[3]!.stepId).not.toBe(before.root[3]!.stepId);
    expect(root[3]!.content).toContain('396');
    expect(root[4]!.content).toBe(part2Before.chain.at(-1)!.content);
    expect(root[5]!.content).toMatch(/part 1 .*396[\s\S]*part 2 .*36/u);
    expect(root[5]!.content).not.toContain('395');

    // Part 2's sub-agent was never run again and its steps are still valid.
    expect(runs.get('What is 15% of 240?')).toBe(1);
    expect(runs.get('What is 17 * 23 + 4?')).toBe(2);
    const after = (await storedEvents(store, sessionId)).slice(mark);
    expect(after.some((event) => event.type === 'subagent.started')).toBe(false);
    expect(after.some((event) => event.type === 'step.started' && event.step.scope === part2Before.scope)).toBe(false);
    const part2 = scopes.get('What is 15% of 240?')!;
    expect(part2.chain.map((step) => step.stepId)).toEqual(part2Before.chain.map((step) => step.stepId));
    expect(part2.chain.every((step) => step.status === 'completed')).toBe(true);
    expect(part2.status).toBe('completed');
    // The parent's old observations and answer are invalidated, not its batch.
    const invalidated = new Set(after.flatMap((event) => (event.type === 'steps.invalidated' ? event.stepIds : [])));
    expect(before.root.slice(3).every((step) => invalidated.has(step.stepId))).toBe(true);
    expect(before.root.slice(0, 3).some((step) => invalidated.has(step.stepId))).toBe(false);
  });

  it('does the same in Chinese', async () => {
    const { sessions, runs } = setup();
    const { sessionId, peer } = await delegated(sessions, ZH);
    const before = chains(await snapshotOf(sessions, sessionId));
    expect(peer.events(sessionId).filter((event) => event.type === 'subagent.started')).toEqual([
      expect.objectContaining({ name: '第 1 部分', task: '17 乘以 23 加 4 是多少？' }),
      expect.objectContaining({ name: '第 2 部分', task: '240 的 15% 是多少？' }),
    ]);
    expect(before.root.at(-1)!.content).toMatch(/第 1 部分.*395[\s\S]*第 2 部分.*36/u);
    const part1Before = before.scopes.get('17 乘以 23 加 4 是多少？')!;
    const part2Before = before.scopes.get('240 的 15% 是多少？')!;

    // Part 1 computes 17 × 23, then adds 4: its second call becomes 391 + 5.
    const mark = await correctCalculator(sessions, sessionId, part1Before.chain, '391 + 5', 1);
    const { root, scopes } = chains(await snapshotOf(sessions, sessionId));
    expect(scopes.get('17 乘以 23 加 4 是多少？')!.chain.at(-1)!.content).toContain('396');
    expect(root.at(-1)!.content).toMatch(/第 1 部分.*396[\s\S]*第 2 部分.*36/u);
    expect(runs.get('240 的 15% 是多少？')).toBe(1);
    const after = (await storedEvents(store, sessionId)).slice(mark);
    expect(after.some((event) => event.type === 'step.started' && event.step.scope === part2Before.scope)).toBe(false);
    expect(scopes.get('240 的 15% 是多少？')!.chain.map((step) => step.stepId)).toEqual(part2Before.chain.map((step) => step.stepId));
  });

  it('runs a corrected delegate call as a new sub-agent and keeps the other part as it was', async () => {
    const { sessions, runs } = setup();
    const { sessionId } = await delegated(sessions, EN);
    const before = chains(await snapshotOf(sessions, sessionId));
    const call2 = before.root[2]!;
    await sessions.correct({ sessionId, stepId: call2.stepId, content: JSON.stringify({ task: 'What is 10% of 240?', name: 'part 2' }) });
    await untilDone(sessions, sessionId);
    const { root, scopes } = chains(await snapshotOf(sessions, sessionId));
    expect(scopes.get('What is 10% of 240?')!.chain.at(-1)!.content).toContain('24');
    expect(root.at(-1)!.content).toMatch(/part 1 .*395[\s\S]*part 2 \(What is 10% of 240\?\): .*24/u);
    // Part 1 finished and stayed valid: its stored outcome joined the new batch without a run.
    expect(runs.get('What is 17 * 23 + 4?')).toBe(1);
    expect(runs.get('What is 10% of 240?')).toBe(1);
  });

  it('answers from a corrected observation of the join as it stands, without running either sub-agent again', async () => {
    const { sessions, runs } = setup();
    const { sessionId } = await delegated(sessions, EN);
    const before = chains(await snapshotOf(sessions, sessionId));
    await sessions.correct({ sessionId, stepId: before.root[3]!.stepId, content: 'Part 1 is 400, checked by hand.' });
    await untilDone(sessions, sessionId);
    const { root, scopes } = chains(await snapshotOf(sessions, sessionId));
    expect(root.map((step) => step.kind)).toEqual(['thought', 'tool_call', 'tool_call', 'observation', 'observation', 'final_answer']);
    expect(root[3]).toMatchObject({ status: 'corrected', content: 'Part 1 is 400, checked by hand.' });
    expect(root[5]!.content).toMatch(/part 1 .*Part 1 is 400, checked by hand\.[\s\S]*part 2 .*36/u);
    expect(runs.get('What is 17 * 23 + 4?')).toBe(1);
    expect(runs.get('What is 15% of 240?')).toBe(1);
    expect([...scopes.values()].every((part) => part.status === 'completed')).toBe(true);
  });

  it('asks approval for each delegate call when the policy names delegate, then runs the batch once both are approved', async () => {
    const { sessions, runs } = setup();
    const { sessionId } = await sessions.create({ task: EN, options: { tokenDelayMs: 0, approve: ['delegate'] } });
    const pendingCall = async () => {
      await until(async () => (await snapshotOf(sessions, sessionId)).session.status === 'waiting', 'a delegate call to wait');
      return chains(await snapshotOf(sessions, sessionId)).root.at(-1)!;
    };
    const first = await pendingCall();
    expect(first).toMatchObject({ kind: 'tool_call', tool: 'delegate', approval: { state: 'pending' } });
    await sessions.approve({ sessionId, stepId: first.stepId, by: 'conn-a' });
    const second = await pendingCall();
    expect(JSON.parse(second.content)).toEqual({ task: 'What is 15% of 240?', name: 'part 2' });
    // The batch runs only once its every call may: nothing was delegated while the second call waited.
    expect(runs.get('What is 17 * 23 + 4?')).toBeUndefined();
    await sessions.approve({ sessionId, stepId: second.stepId, by: 'conn-a' });
    await untilDone(sessions, sessionId);
    const { root } = chains(await snapshotOf(sessions, sessionId));
    expect(root.map((step) => step.kind)).toEqual(['thought', 'tool_call', 'tool_call', 'observation', 'observation', 'final_answer']);
    expect(root.at(-1)!.content).toMatch(/395[\s\S]*36/u);
    expect(runs.get('What is 17 * 23 + 4?')).toBe(1);
    expect(runs.get('What is 15% of 240?')).toBe(1);
  });

  it('goes on from its batch after a restart interrupted it while the sub-agents ran', async () => {
    const first = setup();
    // Slow tokens, so the sub-agents are still streaming when the server stops.
    const { sessionId } = await first.sessions.create({ task: EN, options: { tokenDelayMs: 5 } });
    await until(async () => {
      const snapshot = await snapshotOf(first.sessions, sessionId);
      return (snapshot.subagents ?? []).length === 2 && (snapshot.subagents ?? []).every((info) => info.chain.length > 0);
    }, 'both sub-agents to stream', 1_000_000);
    await first.sessions.shutdown();
    manager = undefined;

    const restarted = setup(store);
    await restarted.sessions.ready;
    expect((await snapshotOf(restarted.sessions, sessionId)).session.status).toBe('interrupted');
    await restarted.sessions.resume(sessionId);
    await untilDone(restarted.sessions, sessionId, 1_000_000);
    const { root, scopes } = chains(await snapshotOf(restarted.sessions, sessionId));
    expect(root.map((step) => step.kind)).toEqual(['thought', 'tool_call', 'tool_call', 'observation', 'observation', 'final_answer']);
    expect(root.at(-1)!.content).toMatch(/part 1 .*395[\s\S]*part 2 .*36/u);
    expect(scopes.get('What is 17 * 23 + 4?')!.chain.at(-1)).toMatchObject({ kind: 'final_answer' });
    // The parent was not run again from scratch: it went on from its batch.
    expect(restarted.runs.get(EN)).toBe(1);
  });
});
