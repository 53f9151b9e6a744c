import { beforeEach, describe, expect, it } from 'vitest';
import {
  ROOT_KEY,
  ReducerError,
  alternativesOf,
  applyEvent,
  applyEvents,
  chainOfScope,
  createSessionState,
  scopeRootKey,
  subagentsOf,
  toSnapshot,
  type ReducerErrorCode,
  type SessionEvent,
  type SessionState,
} from '../src/index.js';
import { sessionInfo } from './support/legal-session.js';
import { scopedEvents } from './support/scoped-events.js';

const SID = 'sess_scopes';
const { ev, reset, rewind, stepIn, done, delegate, correct, status, usage } = scopedEvents(SID);

/** The root thinks (t1), delegates a batch of two (d1, d2); their sub-agents write interleaved, then finish. */
function batch(): SessionState {
  return applyEvents(createSessionState(sessionInfo(SID)), [
    ...done('t1', null, 0, 'thought'),
    ...delegate('d1', 't1', 1, { name: 'part 1' }),
    ...delegate('d2', 'd1', 2, { name: 'part 2' }),
    ev({ type: 'step.started', step: stepIn('a1', null, 0, 'thought', 'd1') }),
    ev({ type: 'step.started', step: stepIn('b1', null, 0, 'thought', 'd2') }),
    ev({ type: 'step.delta', stepId: 'a1', text: 'seventeen ' }),
    ev({ type: 'step.delta', stepId: 'b1', text: 'fifteen ' }),
    ev({ type: 'step.completed', stepId: 'b1', content: 'b1 done' }),
    ev({ type: 'step.completed', stepId: 'a1', content: 'a1 done' }),
    ...done('b2', 'b1', 1, 'final_answer', 'd2'),
    ...done('a2', 'a1', 1, 'final_answer', 'd1'),
    status('d2', 'completed'),
    status('d1', 'completed'),
  ]);
}

/** `batch()`, then the join: the batch's observations in call order, and the root's final answer. */
function joined(): SessionState {
  return applyEvents(batch(), [...done('o1', 'd2', 3, 'observation'), ...done('o2', 'o1', 4, 'observation'), ...done('f', 'o2', 5, 'final_answer')]);
}

/** Applying `event` throws a `ReducerError` with `code` and leaves the state exactly as it was. */
function expectRejected(state: SessionState, event: SessionEvent, code: ReducerErrorCode): void {
  const before = structuredClone(state);
  let thrown: unknown;
  try {
    applyEvent(state, event);
  } catch (error) {
    thrown = error;
  }
  expect(thrown).toBeInstanceOf(ReducerError);
  expect((thrown as ReducerError).code).toBe(code);
  expect(state).toEqual(before);
  rewind();
}

beforeEach(() => reset());

describe('the reducer with sub-agents: scoped steps', () => {
  it('chains scoped steps inside their scope, apart from the root chain', () => {
    const state = batch();
    expect(state.chain).toEqual(['t1', 'd1', 'd2']);
    expect(chainOfScope(state, 'd1')).toEqual(['a1', 'a2']);
    expect(chainOfScope(state, 'd2')).toEqual(['b1', 'b2']);
    expect(state.children.get(scopeRootKey('d1'))).toEqual(['a1']);
    expect(state.children.get(ROOT_KEY)).toEqual(['t1']);
    // The delegate call's own children are the root's next steps, never its sub-agent's.
    expect(state.children.get('d1')).toEqual(['d2']);
  });

  it('keeps the steps of two parallel scopes apart however their events interleave', () => {
    const state = batch();
    expect(state.steps.get('a1')).toMatchObject({ scope: 'd1', content: 'a1 done', status: 'completed' });
    expect(state.steps.get('b1')).toMatchObject({ scope: 'd2', content: 'b1 done', status: 'completed' });
    expect(subagentsOf(state).map((subagent) => [subagent.scope, subagent.name, subagent.status])).toEqual([
      ['d1', 'part 1', 'completed'],
      ['d2', 'part 2', 'completed'],
    ]);
  });

  it('joins the batch on the root chain: its observations follow the delegate calls', () => {
    const state = joined();
    expect(state.chain).toEqual(['t1', 'd1', 'd2', 'o1', 'o2', 'f']);
    expect(chainOfScope(state, 'd1')).toEqual(['a1', 'a2']);
  });

  it('cuts only the scope’s chain when a step inside it is corrected', () => {
    const state = batch();
    applyEvents(state, [status('d1', 'running'), ...correct(stepIn('a1x', null, 0, 'thought', 'd1'), 'a1', 1, ['a1', 'a2'])]);
    expect(chainOfScope(state, 'd1')).toEqual(['a1x']);
    expect(chainOfScope(state, 'd2')).toEqual(['b1', 'b2']);
    expect(state.chain).toEqual(['t1', 'd1', 'd2']);
    expect(state.steps.get('a2')!.status).toBe('invalidated');
    expect(state.steps.get('b2')!.status).toBe('completed');
    expect(state.session.revision).toBe(1);
  });

  it('cuts both chains when the invalidation lists the scope’s later steps and the parent’s steps after the join', () => {
    const state = joined();
    applyEvents(state, [...correct(stepIn('a2x', 'a1', 1, 'final_answer', 'd1'), 'a2', 1, ['a2', 'o1', 'o2', 'f']), status('d1', 'running')]);
    expect(chainOfScope(state, 'd1')).toEqual(['a1', 'a2x']);
    expect(state.chain).toEqual(['t1', 'd1', 'd2']);
    expect(chainOfScope(state, 'd2')).toEqual(['b1', 'b2']);
    for (const stepId of ['o1', 'o2', 'f']) expect(state.steps.get(stepId)!.status).toBe('invalidated');
    // The parent regenerates from the batch: its new observations continue the cut root chain.
    applyEvents(state, [status('d1', 'completed'), ...done('o1y', 'd2', 3, 'observation')]);
    expect(state.chain).toEqual(['t1', 'd1', 'd2', 'o1y']);
  });

  it('nests a sub-agent two deep, with its own chain under its parent scope', () => {
    const state = batch();
    applyEvents(state, [
      status('d1', 'running'),
      ...correct(stepIn('a2x', 'a1', 1, 'thought', 'd1'), 'a2', 1, ['a2']),
      ...delegate('e1', 'a2x', 2, { parentScope: 'd1', depth: 2 }),
      ...done('c1', null, 0, 'thought', 'e1'),
      ...done('c2', 'c1', 1, 'final_answer', 'e1'),
      status('e1', 'completed'),
      ...done('a3', 'e1', 3, 'observation', 'd1'),
    ]);
    expect(state.subagents.get('e1')).toMatchObject({ parentScope: 'd1', depth: 2, chain: ['c1', 'c2'], status: 'completed' });
    expect(chainOfScope(state, 'd1')).toEqual(['a1', 'a2x', 'e1', 'a3']);
    expect(subagentsOf(state, 'd1').map((subagent) => subagent.scope)).toEqual(['e1']);
    expect(subagentsOf(state).map((subagent) => subagent.scope)).toEqual(['d1', 'd2']);
  });

  it('cuts a nested scope’s chain when a correction in its parent scope invalidates the delegate call and its steps', () => {
    const state = batch();
    applyEvents(state, [
      status('d1', 'running'),
      ...delegate('e1', 'a2', 2, { parentScope: 'd1', depth: 2 }),
      ...done('c1', null, 0, 'thought', 'e1'),
      status('e1', 'completed'),
      ...correct(stepIn('a1x', null, 0, 'thought', 'd1'), 'a1', 1, ['a1', 'a2', 'e1', 'c1']),
    ]);
    expect(chainOfScope(state, 'd1')).toEqual(['a1x']);
    expect(chainOfScope(state, 'e1')).toEqual([]);
    expect(state.steps.get('c1')!.status).toBe('invalidated');
  });

  it('totals usage per scope and every scope above it, and in the session', () => {
    const state = batch();
    applyEvents(state, [
      usage(['a1', 'a2'], 10, 2, 0.5),
      usage(['b1'], 7, 1),
      status('d1', 'running'),
      ...delegate('e1', 'a2', 2, { parentScope: 'd1', depth: 2 }),
      ...done('c1', null, 0, 'thought', 'e1'),
      usage(['c1'], 100, 20, 0.25),
      usage(['t1'], 1000, 1),
    ]);
    expect(state.subagents.get('e1')!.usage).toEqual({ inputTokens: 100, outputTokens: 20, costUsd: 0.25, calls: 1 });
    expect(state.subagents.get('d1')!.usage).toEqual({ inputTokens: 110, outputTokens: 22, costUsd: 0.75, calls: 2 });
    expect(state.subagents.get('d2')!.usage).toEqual({ inputTokens: 7, outputTokens: 1, calls: 1 });
    expect(state.session.usage).toEqual({ inputTokens: 1117, outputTokens: 24, costUsd: 0.75, calls: 4 });
    expect(state.steps.get('a2')!.usage).toMatchObject({ inputTokens: 10, model: 'm' });
    expect(state.steps.get('a1')!.usage).toBeUndefined();
  });

  it('sets a sub-agent’s status and error, and clears the error with the next status', () => {
    const state = batch();
    applyEvent(state, status('d1', 'failed', 'tool crashed'));
    expect(state.subagents.get('d1')).toMatchObject({ status: 'failed', error: 'tool crashed' });
    applyEvent(state, status('d1', 'running'));
    expect(state.subagents.get('d1')!.status).toBe('running');
    expect(state.subagents.get('d1')!.error).toBeUndefined();
  });
});

describe('the reducer with sub-agents: events that do not fit', () => {
  it('refuses a scoped step of a scope no subagent.started opened (UNKNOWN_SCOPE)', () => {
    const state = batch();
    expectRejected(state, ev({ type: 'step.started', step: stepIn('x1', null, 0, 'thought', 't1') }), 'UNKNOWN_SCOPE');
    expectRejected(state, ev({ type: 'subagent.status', scope: 't1', status: 'running' }), 'UNKNOWN_SCOPE');
    expectRejected(state, ev({ type: 'step.corrected', revision: 1, step: { ...stepIn('x2', null, 0, 'thought', 't1'), status: 'corrected' } }), 'UNKNOWN_SCOPE');
  });

  it('refuses a sub-agent under a parent scope never started, or not the one its delegate call is in (UNKNOWN_SCOPE)', () => {
    const state = batch();
    applyEvents(state, [status('d1', 'running'), ev({ type: 'step.started', step: { ...stepIn('e1', 'a2', 2, 'tool_call', 'd1'), tool: 'delegate' } })]);
    expectRejected(state, ev({ type: 'subagent.started', scope: 'e1', parentScope: 't1', depth: 2, name: 'x', agent: 'demo', task: 'x' }), 'UNKNOWN_SCOPE');
    expectRejected(state, ev({ type: 'subagent.started', scope: 'e1', parentScope: 'd2', depth: 2, name: 'x', agent: 'demo', task: 'x' }), 'UNKNOWN_SCOPE');
    expectRejected(state, ev({ type: 'subagent.started', scope: 'e1', depth: 1, name: 'x', agent: 'demo', task: 'x' }), 'UNKNOWN_SCOPE');
    applyEvent(state, ev({ type: 'subagent.started', scope: 'e1', parentScope: 'd1', depth: 2, name: 'x', agent: 'demo', task: 'x' }));
    expect(state.subagents.get('e1')!.parentScope).toBe('d1');
  });

  it('refuses a sub-agent of a step that does not exist (UNKNOWN_STEP)', () => {
    expectRejected(batch(), ev({ type: 'subagent.started', scope: 'nope', depth: 1, name: 'x', agent: 'demo', task: 'x' }), 'UNKNOWN_STEP');
  });

  it('refuses a second subagent.started of one scope (DUPLICATE_SCOPE)', () => {
    expectRejected(batch(), ev({ type: 'subagent.started', scope: 'd1', depth: 1, name: 'again', agent: 'demo', task: 'x' }), 'DUPLICATE_SCOPE');
  });

  it('refuses a scoped step that does not continue its scope’s chain (NOT_ON_CHAIN)', () => {
    const state = batch();
    // Under the other scope's head, under the root's head, at the wrong index, as a second first step.
    expectRejected(state, ev({ type: 'step.started', step: stepIn('x1', 'b2', 2, 'thought', 'd1') }), 'NOT_ON_CHAIN');
    expectRejected(state, ev({ type: 'step.started', step: stepIn('x1', 'd2', 3, 'thought', 'd1') }), 'NOT_ON_CHAIN');
    expectRejected(state, ev({ type: 'step.started', step: stepIn('x1', 'a2', 3, 'thought', 'd1') }), 'NOT_ON_CHAIN');
    expectRejected(state, ev({ type: 'step.started', step: stepIn('x1', null, 0, 'thought', 'd1') }), 'NOT_ON_CHAIN');
    // A root step may not continue a scope's chain either.
    expectRejected(state, ev({ type: 'step.started', step: stepIn('x1', 'a2', 2, 'thought') }), 'NOT_ON_CHAIN');
    // A correction must replace a step of its own scope's chain.
    expectRejected(state, ev({ type: 'step.corrected', revision: 1, step: { ...stepIn('x2', null, 0, 'thought', 'd2'), status: 'corrected', correctionOf: 'a1' } }), 'NOT_ON_CHAIN');
  });

  it('refuses copies that mix scopes (NOT_ON_CHAIN)', () => {
    const state = batch();
    const steps = [{ ...stepIn('k1', 'a2', 2, 'thought', 'd1'), status: 'completed' as const }, { ...stepIn('k2', 'k1', 3, 'thought', 'd2'), status: 'completed' as const }];
    expectRejected(state, ev({ type: 'steps.copied', steps, from: { sessionId: 'src', stepId: 'x' } }), 'NOT_ON_CHAIN');
  });
});

describe('the reducer with sub-agents: snapshots and branches', () => {
  it('round-trips a state with sub-agents through a snapshot, and folds on from it', () => {
    const state = joined();
    applyEvents(state, [usage(['a2'], 3, 4), ...correct(stepIn('b2x', 'b1', 1, 'final_answer', 'd2'), 'b2', 1, ['b2', 'o1', 'o2', 'f'])]);
    const snapshot = JSON.parse(JSON.stringify(toSnapshot(state))) as ReturnType<typeof toSnapshot>;
    expect(snapshot.subagents!.map((subagent) => subagent.scope)).toEqual(['d1', 'd2']);
    const rebuilt = createSessionState(snapshot);
    expect(rebuilt).toEqual(state);
    expect(alternativesOf(rebuilt, 'b2x')).toEqual(['b2', 'b2x']);
    const more = [status('d2', 'completed'), ...done('o1y', 'd2', 3, 'observation')];
    applyEvents(state, more);
    applyEvents(rebuilt, more);
    expect(rebuilt).toEqual(state);
  });

  it('copies a snapshot’s sub-agents, never shares them', () => {
    const snapshot = toSnapshot(batch());
    const state = createSessionState(snapshot);
    state.subagents.get('d1')!.chain.push('zz');
    expect(snapshot.subagents![0]!.chain).toEqual(['a1', 'a2']);
  });

  it('keeps the alternatives of one scope apart from the others and from the root', () => {
    const state = batch();
    applyEvents(state, [
      ...correct(stepIn('a1x', null, 0, 'thought', 'd1'), 'a1', 1, ['a1', 'a2']),
      ...correct(stepIn('b1x', null, 0, 'thought', 'd2'), 'b1', 2, ['b1', 'b2']),
      ...correct(stepIn('t1x', null, 0, 'thought'), 't1', 3, ['t1', 'd1', 'd2']),
    ]);
    expect(alternativesOf(state, 'a1x')).toEqual(['a1', 'a1x']);
    expect(alternativesOf(state, 'b1')).toEqual(['b1', 'b1x']);
    expect(alternativesOf(state, 't1x')).toEqual(['t1', 't1x']);
    expect(alternativesOf(state, 'a2')).toEqual(['a2']);
  });
});
