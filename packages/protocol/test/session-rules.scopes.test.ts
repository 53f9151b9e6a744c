import { beforeEach, describe, expect, it } from 'vitest';
import { applyEvents, createSessionState, decisionRefusal, isAwaitingDecision, isCorrectable, isOnChain, type SessionState } from '../src/index.js';
import { sessionInfo } from './support/legal-session.js';
import { scopedEvents } from './support/scoped-events.js';

const SID = 'sess_rules_scopes';
const { ev, reset, stepIn, done, delegate, correct, status } = scopedEvents(SID);

/** A batch of two sub-agents: d1 has a1 → a2, d2 has b1 and a tool call k1 that waits for approval. */
function waitingInScope(): SessionState {
  return applyEvents(createSessionState(sessionInfo(SID)), [
    ...done('t1', null, 0, 'thought'),
    ...delegate('d1', 't1', 1),
    ...delegate('d2', 'd1', 2),
    ...done('a1', null, 0, 'thought', 'd1'),
    ...done('b1', null, 0, 'thought', 'd2'),
    ...done('a2', 'a1', 1, 'thought', 'd1'),
    ev({ type: 'step.started', step: { ...stepIn('k1', 'b1', 1, 'tool_call', 'd2'), tool: 'calculator' } }),
    ev({ type: 'step.completed', stepId: 'k1', content: '{"expression":"1+1"}', tool: 'calculator' }),
    ev({ type: 'approval.requested', stepId: 'k1', tool: 'calculator', input: { expression: '1+1' } }),
    status('d2', 'waiting'),
  ]);
}

const on = (state: SessionState, stepId: string): boolean => isOnChain(state, state.steps.get(stepId)!);

beforeEach(() => reset());

describe('session rules for scoped steps', () => {
  it('reads a scoped step as on the chain of its scope', () => {
    const state = waitingInScope();
    for (const stepId of ['t1', 'd1', 'd2', 'a1', 'a2', 'b1', 'k1']) expect(on(state, stepId), stepId).toBe(true);
    expect(isCorrectable(state, 'a1')).toBe(true);
  });

  it('takes a corrected scope step and its later steps off the chain, and leaves the sibling scope on it', () => {
    const state = waitingInScope();
    applyEvents(state, correct(stepIn('a1x', null, 0, 'thought', 'd1'), 'a1', 1, ['a1', 'a2']));
    expect([on(state, 'a1'), on(state, 'a2'), on(state, 'a1x'), on(state, 'b1')]).toEqual([false, false, true, true]);
    expect(isCorrectable(state, 'a2')).toBe(false);
    expect(isCorrectable(state, 'a1x')).toBe(true);
  });

  it('takes a scope’s steps off the chain once its delegate call is, even before they are invalidated', () => {
    const state = waitingInScope();
    applyEvents(state, correct(stepIn('d1x', 't1', 1, 'tool_call'), 'd1', 1, ['d1', 'd2']));
    expect(on(state, 'a1')).toBe(false);
    expect(isCorrectable(state, 'b1')).toBe(false);
    expect(decisionRefusal(state, 'k1')).toBe('invalidated');
  });

  it('lets a pending call in a waiting sub-agent be decided while the session still runs its siblings', () => {
    const state = waitingInScope();
    expect(state.session.status).toBe('running');
    expect(decisionRefusal(state, 'k1')).toBeUndefined();
    expect(isAwaitingDecision(state, 'k1')).toBe(true);
    applyEvents(state, [ev({ type: 'session.status', status: 'waiting' })]);
    expect(decisionRefusal(state, 'k1')).toBeUndefined();
  });

  it('refuses a decision on a scoped call whose sub-agent is not waiting, or in a session paused or at rest', () => {
    const state = waitingInScope();
    applyEvents(state, [ev({ type: 'session.status', status: 'paused' })]);
    expect(decisionRefusal(state, 'k1')).toBe('session_not_waiting');
    applyEvents(state, [ev({ type: 'session.status', status: 'cancelled' })]);
    expect(decisionRefusal(state, 'k1')).toBe('session_not_waiting');
    applyEvents(state, [ev({ type: 'session.status', status: 'running' }), status('d2', 'running')]);
    expect(decisionRefusal(state, 'k1')).toBe('session_not_waiting');
  });

  it('still asks a root call for a waiting session, whatever its sub-agents do', () => {
    const state = waitingInScope();
    applyEvents(state, [
      status('d1', 'completed'),
      status('d2', 'completed'),
      ...done('o1', 'd2', 3, 'observation'),
      ev({ type: 'step.started', step: { ...stepIn('k2', 'o1', 4, 'tool_call'), tool: 'calculator' } }),
      ev({ type: 'step.completed', stepId: 'k2', content: '{}', tool: 'calculator' }),
      ev({ type: 'approval.requested', stepId: 'k2', tool: 'calculator', input: {} }),
    ]);
    expect(decisionRefusal(state, 'k2')).toBe('session_not_waiting');
    applyEvents(state, [ev({ type: 'session.status', status: 'waiting' })]);
    expect(decisionRefusal(state, 'k2')).toBeUndefined();
  });
});
