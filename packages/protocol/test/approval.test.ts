import { describe, expect, it } from 'vitest';
import {
  ReducerError,
  SessionEventSchema,
  applyEvent,
  applyEvents,
  createSessionState,
  decisionRefusal,
  isAwaitingDecision,
  isRefusalResult,
  allowsLifecycle,
  SessionOptionsSchema,
  toSnapshot,
  type SessionEvent,
  type SessionState,
  type Step,
} from '../src/index.js';
import { eventBuilder, stepOf } from './support/event-builders.js';
import { sessionInfo } from './support/legal-session.js';

const SID = 'sess_a';
const { ev, reset } = eventBuilder(SID);

const step = (stepId: string, parentId: string | null, index: number, kind: Step['kind']): Step => stepOf(stepId, parentId, index, kind);

/** thought → tool_call (completed) → approval.requested → waiting. */
function waitingForApproval(): SessionState {
  reset();
  return applyEvents(createSessionState(sessionInfo(SID)), [
    ev({ type: 'session.status', status: 'running' }),
    ev({ type: 'step.started', step: step('a', null, 0, 'thought') }),
    ev({ type: 'step.completed', stepId: 'a', content: 'Multiply.' }),
    ev({ type: 'step.started', step: { ...step('b', 'a', 1, 'tool_call'), tool: 'calculator' } }),
    ev({ type: 'step.completed', stepId: 'b', content: '{"expression":"6*7"}', tool: 'calculator' }),
    ev({ type: 'approval.requested', stepId: 'b', tool: 'calculator', input: { expression: '6*7' } }),
    ev({ type: 'session.status', status: 'waiting', detail: 'Waiting for approval: calculator' }),
  ]);
}

describe('approvals in the reducer', () => {
  it('marks the step pending with the time it started waiting, and a snapshot carries it', () => {
    const state = waitingForApproval();
    expect(state.steps.get('b')!.approval).toEqual({ state: 'pending', requestedAt: '2025-01-01T00:00:06.000Z' });
    expect(state.session.status).toBe('waiting');
    const copy = createSessionState(toSnapshot(state));
    expect(copy.steps.get('b')!.approval).toEqual(state.steps.get('b')!.approval);
    expect(isAwaitingDecision(copy, 'b')).toBe(true);
  });

  it('keeps the decision on the step: who, when, why', () => {
    const state = waitingForApproval();
    applyEvent(state, ev({ type: 'approval.resolved', stepId: 'b', decision: 'rejected', by: 'conn_1', reason: 'not now' }));
    expect(state.steps.get('b')!.approval).toEqual({
      state: 'rejected',
      requestedAt: '2025-01-01T00:00:06.000Z',
      by: 'conn_1',
      at: '2025-01-01T00:00:08.000Z',
      reason: 'not now',
    });
    expect(decisionRefusal(state, 'b')).toBe('already_decided');
  });

  it('refuses an approval event that names an unknown step, changing nothing', () => {
    const state = waitingForApproval();
    const before = state.seq;
    expect(() => applyEvent(state, ev({ type: 'approval.requested', stepId: 'nope', tool: 'calculator', input: {} }))).toThrow(ReducerError);
    expect(state.seq).toBe(before);
  });

  it('says why a step cannot be decided', () => {
    const state = waitingForApproval();
    expect(decisionRefusal(state, 'zzz')).toBe('not_found');
    expect(decisionRefusal(state, 'a')).toBe('not_a_tool_call');
    state.steps.get('b')!.status = 'invalidated';
    expect(decisionRefusal(state, 'b')).toBe('invalidated');
    state.steps.get('b')!.status = 'completed';
    state.session.status = 'cancelled';
    expect(decisionRefusal(state, 'b')).toBe('session_not_waiting');
    delete state.steps.get('b')!.approval;
    expect(decisionRefusal(state, 'b')).toBe('not_requested');
  });

  it('lets a waiting session be cancelled but not paused or resumed', () => {
    expect(allowsLifecycle('cancel', 'waiting')).toBe(true);
    expect(allowsLifecycle('pause', 'waiting')).toBe(false);
    expect(allowsLifecycle('resume', 'waiting')).toBe(false);
  });

  it('validates the events and the policy options', () => {
    const requested = { type: 'approval.requested', sessionId: SID, seq: 3, at: 'x', stepId: 'b', tool: 'calculator', input: { a: 1 } };
    expect(SessionEventSchema.safeParse(requested).success).toBe(true);
    const resolved = { type: 'approval.resolved', sessionId: SID, seq: 4, at: 'x', stepId: 'b', decision: 'maybe', by: 'c' };
    expect(SessionEventSchema.safeParse(resolved).success).toBe(false);
    expect(SessionOptionsSchema.safeParse({ approve: 'all' }).success).toBe(true);
    expect(SessionOptionsSchema.safeParse({ approve: ['calculator'] }).success).toBe(true);
    expect(SessionOptionsSchema.safeParse({ approve: [] }).success).toBe(false);
    expect(SessionOptionsSchema.safeParse({ approve: 'some' }).success).toBe(false);
    expect(SessionOptionsSchema.safeParse({ approvalTimeoutMs: 10 }).success).toBe(false);
  });

  it('recognises the result of a refusal observation', () => {
    expect(isRefusalResult({ refused: true, by: 'conn_1' })).toBe(true);
    expect(isRefusalResult({ value: 3 })).toBe(false);
    expect(isRefusalResult(null)).toBe(false);
  });
});
