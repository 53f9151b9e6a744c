import { beforeEach, describe, expect, it } from 'vitest';
import {
  applyEvents,
  createSessionState,
  enclosingScopes,
  isDelegateCall,
  parseDelegateInput,
  runningSubagents,
  scopeChainSteps,
  subagentOfStep,
  type SessionState,
} from '../src/index.js';
import { sessionInfo } from './support/legal-session.js';
import { scopedEvents } from './support/scoped-events.js';

const SID = 'sess_queries';
const { reset, done, delegate, status } = scopedEvents(SID);

/** Two sub-agents of the root (d1, d2), d1 with one of its own (e1). */
function nested(): SessionState {
  return applyEvents(createSessionState(sessionInfo(SID)), [
    ...done('t1', null, 0, 'thought'),
    ...delegate('d1', 't1', 1),
    ...delegate('d2', 'd1', 2),
    ...done('a1', null, 0, 'thought', 'd1'),
    ...delegate('e1', 'a1', 1, { parentScope: 'd1', depth: 2 }),
    ...done('c1', null, 0, 'thought', 'e1'),
    ...done('b1', null, 0, 'final_answer', 'd2'),
    status('d2', 'completed'),
  ]);
}

beforeEach(() => reset());

describe('sub-agent queries', () => {
  it('tells a delegate call from other steps', () => {
    const state = nested();
    expect(isDelegateCall(state.steps.get('d1')!)).toBe(true);
    expect(isDelegateCall(state.steps.get('e1')!)).toBe(true);
    expect(isDelegateCall(state.steps.get('t1')!)).toBe(false);
    expect(isDelegateCall({ kind: 'observation', tool: 'delegate' })).toBe(false);
    expect(isDelegateCall({ kind: 'tool_call', tool: 'calculator' })).toBe(false);
  });

  it('parses a delegate call’s input, and nothing that is not one', () => {
    expect(parseDelegateInput('{"task":"Add them.","name":"part 1"}')).toEqual({ task: 'Add them.', name: 'part 1' });
    expect(parseDelegateInput('{"task":""}')).toBeUndefined();
    expect(parseDelegateInput('{"task":"x","extra":1}')).toBeUndefined();
    expect(parseDelegateInput('not json')).toBeUndefined();
  });

  it('lists the steps of a scope’s chain, the root’s without a scope, none for an unknown scope', () => {
    const state = nested();
    expect(scopeChainSteps(state, 'd1').map((step) => step.stepId)).toEqual(['a1', 'e1']);
    expect(scopeChainSteps(state, 'e1').map((step) => step.stepId)).toEqual(['c1']);
    expect(scopeChainSteps(state).map((step) => step.stepId)).toEqual(['t1', 'd1', 'd2']);
    expect(scopeChainSteps(state, 'nope')).toEqual([]);
  });

  it('finds the sub-agent that wrote a step', () => {
    const state = nested();
    expect(subagentOfStep(state, 'c1')?.scope).toBe('e1');
    expect(subagentOfStep(state, 'e1')?.scope).toBe('d1');
    expect(subagentOfStep(state, 'd1')).toBeUndefined();
    expect(subagentOfStep(state, 'nope')).toBeUndefined();
  });

  it('lists the sub-agents running or waiting, in the order they started', () => {
    const state = nested();
    expect(runningSubagents(state).map((subagent) => subagent.scope)).toEqual(['d1', 'e1']);
    applyEvents(state, [status('e1', 'waiting'), status('d1', 'cancelled')]);
    expect(runningSubagents(state).map((subagent) => subagent.scope)).toEqual(['e1']);
  });

  it('names the scopes enclosing a step, innermost first', () => {
    const state = nested();
    expect(enclosingScopes(state, 'c1')).toEqual(['e1', 'd1']);
    expect(enclosingScopes(state, 'b1')).toEqual(['d2']);
    expect(enclosingScopes(state, 't1')).toEqual([]);
  });
});
