import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ApprovalPolicy, SessionEvent, SessionOptions, Step } from '@interthought/protocol';
import { AgentRegistry } from '@interthought/agent';
import { createDemoAgent } from '../../src/agents/demo/index.js';
import { SessionManager, type SessionManagerDeps } from '../../src/core/session-manager.js';
import type { EventStore } from '../../src/core/persistence/event-store.js';
import { MemoryEventStore } from '../../src/store/memory-event-store.js';
import { calculatorTool } from '../../src/tools/calculator.js';
import { dateCalculatorTool } from '../../src/tools/date-calculator.js';
import { unitConverterTool } from '../../src/tools/unit-converter.js';
import { ToolRegistry } from '../../src/tools/tool-registry.js';
import type { Tool } from '../../src/tools/tool.js';
import { fold, storedEvents, turns, until, untilStatus } from './support/harness.js';
import { RecordingPeer } from './support/recording-peer.js';
import { refusal } from './support/refusal.js';
import { TestAgent } from './support/test-agents.js';
import { LedgerTool } from './support/test-tools.js';
import { streamStep } from '../../src/agents/stream-text.js';
import { observeTool } from '../../src/agents/tool-steps.js';

/** The built-in tools, the calculator's `execute` spied on: what ran, with which input. */
function spiedTools(): { tools: ToolRegistry; calculator: ReturnType<typeof vi.fn>; ledger: LedgerTool } {
  const calculator = vi.fn(calculatorTool.execute);
  const spied: Tool = { ...calculatorTool, execute: calculator };
  const ledger = new LedgerTool();
  return { tools: new ToolRegistry().register(spied).register(unitConverterTool).register(dateCalculatorTool).register(ledger), calculator, ledger };
}

/** Writes a ledger entry, then answers with what the ledger said (or that it was refused). */
const ledgerAgent = new TestAgent('ledger', async (context) => {
  const last = context.chain.at(-1);
  let said = last?.kind === 'observation' ? last.content : '';
  if (last === undefined) {
    await streamStep(context.sink, 'tool_call', '{"entry":"pay 40 EUR"}', { tool: 'ledger' });
    const outcome = await observeTool(context, 'ledger', { entry: 'pay 40 EUR' });
    said = outcome.ok ? outcome.result.text : outcome.error;
  } else if (last.kind === 'tool_call') {
    const checked = context.tools.checkInput('ledger', last.content);
    const outcome = checked.ok ? await observeTool(context, 'ledger', checked.input) : undefined;
    said = outcome?.ok ? outcome.result.text : 'the ledger refused the entry';
  }
  await streamStep(context.sink, 'final_answer', `Done: ${said}`);
});

let managers: SessionManager[] = [];
afterEach(async () => {
  for (const manager of managers) await manager.shutdown();
  managers = [];
});

interface Setup {
  manager: SessionManager;
  store: EventStore;
  calculator: ReturnType<typeof vi.fn>;
  ledger: LedgerTool;
  restart(): SessionManager;
}

function setup(deps: Partial<SessionManagerDeps> = {}): Setup {
  const store = new MemoryEventStore();
  const { tools, calculator, ledger } = spiedTools();
  const build = (): SessionManager => {
    const manager = new SessionManager({ store, agents: new AgentRegistry('demo').register(createDemoAgent()).register(ledgerAgent), tools, ...deps });
    managers.push(manager);
    return manager;
  };
  return { manager: build(), store, calculator, ledger, restart: build };
}

async function chainOf(manager: SessionManager, sessionId: string): Promise<Step[]> {
  const snapshot = (await manager.snapshot(sessionId))!;
  return snapshot.chain.map((id) => snapshot.steps.find((step) => step.stepId === id)!);
}

async function untilDone(manager: SessionManager, sessionId: string): Promise<void> {
  await until(async () => ['completed', 'failed'].includes((await manager.snapshot(sessionId))!.session.status), `session ${sessionId} to finish`);
  await turns(2);
}

/** Create a demo session with `options` and wait until its calculator call waits for approval. */
async function pendingCall(manager: SessionManager, task = 'What is 12 * 7?', options: SessionOptions = { approve: 'all' }) {
  const { sessionId } = await manager.create({ task, options });
  await untilStatus(manager, sessionId, 'waiting');
  const call = (await chainOf(manager, sessionId)).at(-1)!;
  return { sessionId, call };
}

const typesOf = (events: readonly SessionEvent[]): string[] => events.map((event) => event.type);

describe('approvals with the demo agent', () => {
  it('waits before the tool runs, and approving runs the proposed call to the answer', async () => {
    const { manager, store, calculator } = setup();
    const { sessionId, call } = await pendingCall(manager);
    expect(call).toMatchObject({ kind: 'tool_call', tool: 'calculator', status: 'completed', approval: { state: 'pending' } });
    const snapshot = (await manager.snapshot(sessionId))!;
    expect(snapshot.session).toMatchObject({ status: 'waiting', detail: 'Waiting for approval: calculator' });
    expect(calculator).not.toHaveBeenCalled();
    expect(manager.activeSessionCount).toBe(0);

    const requester = new RecordingPeer('conn-a');
    await manager.approve({ sessionId, stepId: call.stepId, by: 'conn-a' }, { peer: requester, requestId: 'r1' });
    await untilDone(manager, sessionId);
    expect(requester.ofType('approval.resolved')).toEqual([expect.objectContaining({ requestId: 'r1', stepId: call.stepId, decision: 'approved', by: 'conn-a' })]);
    expect(calculator).toHaveBeenCalledTimes(1);
    expect(calculator.mock.calls[0]![0]).toEqual(JSON.parse(call.content));
    const chain = await chainOf(manager, sessionId);
    expect(chain.map((step) => step.kind).slice(-3)).toEqual(['tool_call', 'observation', 'final_answer']);
    expect(chain.at(-1)!.content).toContain('84');
    expect(chain.find((step) => step.stepId === call.stepId)!.approval).toMatchObject({ state: 'approved', by: 'conn-a' });

    const events = await storedEvents(store, sessionId);
    const asked = events.findIndex((event) => event.type === 'approval.requested');
    expect(typesOf(events.slice(asked - 1, asked + 5))).toEqual([
      'step.completed',
      'approval.requested',
      'session.status',
      'approval.resolved',
      'session.status',
      'step.started',
    ]);
    expect(events[asked]).toMatchObject({ stepId: call.stepId, tool: 'calculator', input: JSON.parse(call.content) });
    expect([...fold(events).steps.values()]).toEqual((await manager.snapshot(sessionId))!.steps);
  });

  it('rejecting never runs the tool: the refusal is an observation with the reason, and the run finishes', async () => {
    const { manager, calculator } = setup();
    const { sessionId, call } = await pendingCall(manager);
    await manager.reject({ sessionId, stepId: call.stepId, by: 'conn-b', reason: 'Use a rounded figure.' });
    await untilDone(manager, sessionId);
    expect(calculator).not.toHaveBeenCalled();
    const chain = await chainOf(manager, sessionId);
    const observation = chain.at(-2)!;
    expect(observation).toMatchObject({ kind: 'observation', tool: 'calculator', result: { refused: true, by: 'conn-b', reason: 'Use a rounded figure.' } });
    expect(observation.content).toContain('Reason: Use a rounded figure.');
    expect(chain.at(-1)).toMatchObject({ kind: 'final_answer' });
    expect(chain.at(-1)!.content).toContain('You declined the calculator call');
    expect(chain.at(-1)!.content).toContain('Use a rounded figure.');
    expect((await manager.snapshot(sessionId))!.session.status).toBe('completed');
    expect(chain.find((step) => step.stepId === call.stepId)!.approval).toMatchObject({ state: 'rejected', by: 'conn-b', reason: 'Use a rounded figure.' });
  });

  it('answers a refusal in Chinese for a Chinese task', async () => {
    const { manager } = setup();
    const { sessionId, call } = await pendingCall(manager, '240 的 15% 是多少？');
    await manager.reject({ sessionId, stepId: call.stepId, by: 'conn-b' });
    await untilDone(manager, sessionId);
    expect((await chainOf(manager, sessionId)).at(-1)!.content).toContain('你拒绝了这次计算器调用');
  });

  it('a correction of the pending call is its edit: the edited call runs and later steps use its result', async () => {
    const { manager, store, calculator } = setup();
    const { sessionId, call } = await pendingCall(manager);
    const requester = new RecordingPeer('conn-c');
    const result = await manager.correct({ sessionId, stepId: call.stepId, content: '{"expression":"12 * 8"}', by: 'conn-c' }, { peer: requester, requestId: 'r2' });
    await untilDone(manager, sessionId);
    expect(requester.ofType('correction.accepted')).toHaveLength(1);
    expect(calculator).toHaveBeenCalledTimes(1);
    expect(calculator.mock.calls[0]![0]).toEqual({ expression: '12 * 8' });
    const chain = await chainOf(manager, sessionId);
    const edited = chain.find((step) => step.stepId === result.newStepId)!;
    expect(edited).toMatchObject({ status: 'corrected', correctionOf: call.stepId, approval: { state: 'edited', by: 'conn-c' } });
    expect(edited.correction?.previousContent).toBe(call.content);
    expect(chain.at(-1)!.content).toContain('96');
    const snapshot = (await manager.snapshot(sessionId))!;
    expect(snapshot.steps.find((step) => step.stepId === call.stepId)).toMatchObject({ status: 'invalidated', approval: { state: 'edited', by: 'conn-c' } });
    const events = await storedEvents(store, sessionId);
    const decided = events.findIndex((event) => event.type === 'approval.resolved');
    expect(typesOf(events.slice(decided, decided + 4))).toEqual(['approval.resolved', 'step.corrected', 'steps.invalidated', 'session.status']);
    expect(events[decided]).toMatchObject({ decision: 'edited', by: 'conn-c' });
  });

  it('policy "none" never waits, and a list waits only for the tools it names', async () => {
    const { manager, calculator } = setup();
    const none = await manager.create({ task: 'What is 12 * 7?', options: { approve: 'none' } });
    await untilDone(manager, none.sessionId);
    expect(calculator).toHaveBeenCalledTimes(1);
    const other = await manager.create({ task: 'What is 12 * 7?', options: { approve: ['unit_converter'] } });
    await untilDone(manager, other.sessionId);
    expect(calculator).toHaveBeenCalledTimes(2);
    const listed = await pendingCall(manager, 'Convert 5 km to miles', { approve: ['unit_converter'] });
    expect(listed.call).toMatchObject({ tool: 'unit_converter', approval: { state: 'pending' } });
  });

  it('by default only a tool that changes something waits; the server default applies when a session names none', async () => {
    const { manager, calculator, ledger } = setup();
    const read = await manager.create({ task: 'What is 12 * 7?' });
    await untilDone(manager, read.sessionId);
    expect(calculator).toHaveBeenCalledTimes(1);
    const change = await manager.create({ task: 'Pay the invoice', agent: 'ledger' });
    await untilStatus(manager, change.sessionId, 'waiting');
    expect(ledger.entries).toEqual([]);
    const call = (await chainOf(manager, change.sessionId)).at(-1)!;
    await manager.approve({ sessionId: change.sessionId, stepId: call.stepId, by: 'conn-a' });
    await untilDone(manager, change.sessionId);
    expect(ledger.entries).toEqual(['pay 40 EUR']);
    expect((await chainOf(manager, change.sessionId)).at(-1)!.content).toContain('Wrote "pay 40 EUR"');

    const strict = setup({ defaultApprove: 'all' as ApprovalPolicy });
    const { sessionId } = await strict.manager.create({ task: 'What is 12 * 7?' });
    await untilStatus(strict.manager, sessionId, 'waiting');
    expect((await strict.store.getSession(sessionId))!.options.approve).toBe('all');
  });

  it('a pending approval survives a restart as pending, and deciding it then continues the run', async () => {
    const setupA = setup();
    const { sessionId, call } = await pendingCall(setupA.manager);
    await setupA.manager.shutdown();
    const restarted = setupA.restart();
    await restarted.ready;
    expect(restarted.recoveredSessionIds).not.toContain(sessionId);
    const snapshot = (await restarted.snapshot(sessionId))!;
    expect(snapshot.session.status).toBe('waiting');
    expect(snapshot.steps.find((step) => step.stepId === call.stepId)!.approval).toMatchObject({ state: 'pending' });
    await restarted.approve({ sessionId, stepId: call.stepId, by: 'conn-a' });
    await untilDone(restarted, sessionId);
    expect((await chainOf(restarted, sessionId)).at(-1)!.content).toContain('84');
    expect(setupA.calculator).toHaveBeenCalledTimes(1);
  });

  it('of two decisions at once exactly one wins; the other is told who decided', async () => {
    const { manager, calculator } = setup();
    const { sessionId, call } = await pendingCall(manager);
    const outcomes = await Promise.allSettled([
      manager.approve({ sessionId, stepId: call.stepId, by: 'conn-a' }),
      manager.reject({ sessionId, stepId: call.stepId, by: 'conn-b' }),
    ]);
    expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1);
    const lost = outcomes.find((outcome) => outcome.status === 'rejected') as PromiseRejectedResult;
    expect(lost.reason).toMatchObject({ code: 'APPROVAL_NOT_PENDING', message: expect.stringContaining('already approved by conn-a') });
    await untilDone(manager, sessionId);
    expect(calculator).toHaveBeenCalledTimes(1);
  });

  it('refuses decisions that do not apply, with the reason, changing nothing', async () => {
    const { manager } = setup();
    const { sessionId, call } = await pendingCall(manager);
    const chain = await chainOf(manager, sessionId);
    const seq = (await manager.snapshot(sessionId))!.seq;
    await refusal(() => manager.approve({ sessionId, stepId: chain[0]!.stepId, by: 'x' }), 'APPROVAL_NOT_PENDING');
    await refusal(() => manager.approve({ sessionId, stepId: 'nope', by: 'x' }), 'STEP_NOT_FOUND');
    await refusal(() => manager.approve({ sessionId: 'nope', stepId: call.stepId, by: 'x' }), 'SESSION_NOT_FOUND');
    await refusal(() => manager.resume(sessionId), 'INVALID_STATE');
    await refusal(() => manager.pause(sessionId), 'INVALID_STATE');
    expect((await manager.snapshot(sessionId))!.seq).toBe(seq);

    // A correction of an earlier step invalidates the pending call: it can no longer be decided.
    await manager.correct({ sessionId, stepId: chain[0]!.stepId, content: 'I should compute 12 * 9.', by: 'conn-a' });
    const invalidated = await refusal(() => manager.approve({ sessionId, stepId: call.stepId, by: 'x' }), 'STEP_INVALIDATED');
    expect(invalidated.message).toContain('invalidated');
    await until(async () => (await manager.snapshot(sessionId))!.session.status !== 'running', 'the regenerated run to stop');

    // A call that ran without approval was never asked about.
    const free = await manager.create({ task: 'What is 2 + 2?', options: { approve: 'none' } });
    await untilDone(manager, free.sessionId);
    const freeCall = (await chainOf(manager, free.sessionId)).find((step) => step.kind === 'tool_call')!;
    const never = await refusal(() => manager.reject({ sessionId: free.sessionId, stepId: freeCall.stepId, by: 'x' }), 'APPROVAL_NOT_PENDING');
    expect(never.message).toContain('No approval was asked');
  });

  it('cancelling a waiting session stops it for good without running the tool', async () => {
    const { manager, calculator } = setup();
    const { sessionId, call } = await pendingCall(manager);
    await manager.cancel(sessionId);
    await turns(5);
    expect((await manager.snapshot(sessionId))!.session.status).toBe('cancelled');
    await refusal(() => manager.approve({ sessionId, stepId: call.stepId, by: 'x' }), 'SESSION_CANCELLED');
    expect(calculator).not.toHaveBeenCalled();
  });

  it('a call nobody decides in time is rejected by the server with the reason "timed out"', async () => {
    const { manager, calculator } = setup();
    const { sessionId, call } = await pendingCall(manager, 'What is 12 * 7?', { approve: 'all', approvalTimeoutMs: 1_000 });
    await until(async () => (await manager.snapshot(sessionId))!.session.status === 'completed', 'the timeout', 2_000_000);
    expect(calculator).not.toHaveBeenCalled();
    const chain = await chainOf(manager, sessionId);
    expect(chain.find((step) => step.stepId === call.stepId)!.approval).toMatchObject({ state: 'rejected', by: 'server', reason: 'timed out' });
    expect(chain.at(-1)!.content).toContain('was not approved in time');
  });

  it('the deadline holds across a restart, counted from when the call started waiting', async () => {
    const first = setup();
    const { sessionId } = await pendingCall(first.manager, 'What is 12 * 7?', { approve: 'all', approvalTimeoutMs: 1_000 });
    await first.manager.shutdown();
    const restarted = first.restart();
    await restarted.ready;
    await until(async () => (await restarted.snapshot(sessionId))!.session.status === 'completed', 'the timeout after the restart', 2_000_000);
    expect((await chainOf(restarted, sessionId)).at(-2)!.result).toMatchObject({ refused: true, by: 'server', reason: 'timed out' });
  });
});
