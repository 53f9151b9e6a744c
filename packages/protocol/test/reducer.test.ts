import { describe, expect, it } from 'vitest';
import {
  ReducerError,
  ROOT_KEY,
  alternativesOf,
  applyEvent,
  applyEvents,
  chainSteps,
  createSessionState,
  isCorrectable,
  toSnapshot,
  type SessionEvent,
  type SessionState,
  type Step,
} from '../src/index.js';
import { buildSession, sessionInfo } from './support/legal-session.js';

const SID = 'sess_1';
let seq = 0;
const ev = <T extends Omit<SessionEvent, 'sessionId' | 'seq' | 'at'>>(event: T): SessionEvent =>
  ({ ...event, sessionId: SID, seq: ++seq, at: `2025-01-01T00:00:${String(seq).padStart(2, '0')}.000Z` }) as unknown as SessionEvent;

const step = (stepId: string, parentId: string | null, index: number, kind: Step['kind'] = 'thought'): Step => ({
  stepId,
  parentId,
  index,
  kind,
  status: 'streaming',
  content: '',
  revision: 0,
});

/** thought → tool_call → observation, all completed. */
function threeSteps(): SessionState {
  seq = 0;
  return applyEvents(createSessionState(sessionInfo(SID)), [
    ev({ type: 'session.status', status: 'running' }),
    ev({ type: 'step.started', step: step('a', null, 0) }),
    ev({ type: 'step.delta', stepId: 'a', text: 'I should ' }),
    ev({ type: 'step.delta', stepId: 'a', text: 'compute 6*7.' }),
    ev({ type: 'step.completed', stepId: 'a', content: 'I should compute 6*7.' }),
    ev({ type: 'step.started', step: { ...step('b', 'a', 1, 'tool_call'), tool: 'calculator' } }),
    ev({ type: 'step.delta', stepId: 'b', text: '{"expression":"6*7"}' }),
    ev({ type: 'step.completed', stepId: 'b', content: '{"expression":"6*7"}', tool: 'calculator' }),
    ev({ type: 'step.started', step: step('c', 'b', 2, 'observation') }),
    ev({ type: 'step.completed', stepId: 'c', content: '42', tool: 'calculator', result: { value: 42 } }),
  ]);
}

/** Correct step `b` (index 1) with new step `b2`. */
function correctB(state: SessionState): SessionState {
  const corrected: Step = {
    ...step('b2', 'a', 1, 'tool_call'),
    status: 'corrected',
    content: '{"expression":"6*9"}',
    revision: 1,
    correctionOf: 'b',
    correction: { previousContent: '{"expression":"6*7"}', note: 'wrong factor', at: 'now', by: 'conn_1' },
  };
  applyEvent(state, ev({ type: 'step.corrected', step: corrected, revision: 1 }));
  return applyEvent(state, ev({ type: 'steps.invalidated', stepIds: ['b', 'c'], byStepId: 'b2', revision: 1 }));
}

describe('applyEvent', () => {
  it('streams a step: deltas append, completion sets the final content, tool and result', () => {
    const state = threeSteps();
    expect(chainSteps(state).map((s) => [s.stepId, s.status, s.content])).toEqual([
      ['a', 'completed', 'I should compute 6*7.'],
      ['b', 'completed', '{"expression":"6*7"}'],
      ['c', 'completed', '42'],
    ]);
    expect(state.steps.get('c')).toMatchObject({ tool: 'calculator', result: { value: 42 }, completedAt: '2025-01-01T00:00:10.000Z' });
    expect(state.steps.get('a')?.startedAt).toBe('2025-01-01T00:00:02.000Z');
    expect(state.seq).toBe(10);
  });

  it('applies a correction: the new step takes the place on the chain, the old ones are kept as invalidated', () => {
    const state = correctB(threeSteps());
    expect(state.chain).toEqual(['a', 'b2']);
    expect(state.session.revision).toBe(1);
    expect(state.steps.get('b')?.status).toBe('invalidated');
    expect(state.steps.get('c')?.status).toBe('invalidated');
    expect(state.steps.get('b2')).toMatchObject({ status: 'corrected', correctionOf: 'b', correction: { note: 'wrong factor' } });
    expect(alternativesOf(state, 'b2')).toEqual(['b', 'b2']);
    expect(alternativesOf(state, 'a')).toEqual(['a']);
    expect(state.children.get(ROOT_KEY)).toEqual(['a']);
  });

  it('lets the agent continue on the corrected step', () => {
    const state = correctB(threeSteps());
    applyEvent(state, ev({ type: 'step.started', step: { ...step('c2', 'b2', 2, 'observation'), revision: 1 } }));
    expect(state.chain).toEqual(['a', 'b2', 'c2']);
  });

  it('records the failure reason of a failed status, and clears it when the session runs again', () => {
    const state = threeSteps();
    applyEvent(state, ev({ type: 'session.status', status: 'failed', error: 'model unavailable' }));
    expect(state.session).toMatchObject({ status: 'failed', error: 'model unavailable' });
    applyEvent(state, ev({ type: 'session.status', status: 'running' }));
    expect(state.session.status).toBe('running');
    expect(state.session.error).toBeUndefined();
  });

  it('keeps a transient status detail only while it is sent', () => {
    const state = threeSteps();
    applyEvent(state, ev({ type: 'session.status', status: 'running', detail: 'rate limited, retrying in 2 s' }));
    expect(state.session.detail).toBe('rate limited, retrying in 2 s');
    applyEvent(state, ev({ type: 'session.status', status: 'running' }));
    expect(state.session.detail).toBeUndefined();
  });

  it("only advances seq for an event type from a newer server", () => {
    const state = threeSteps();
    const before = toSnapshot(state);
    applyEvent(state, ev({ type: 'session.renamed', title: 'x' } as never));
    expect(toSnapshot(state)).toEqual({ ...before, seq: before.seq + 1 });
  });

  it('marks a deleted session deleted and keeps its tree, status and revision as they were', () => {
    const state = correctB(threeSteps());
    const before = toSnapshot(state);
    expect(state.deleted).toBeUndefined();
    applyEvent(state, ev({ type: 'session.deleted' }));
    expect(state.deleted).toBe(true);
    expect(toSnapshot(state)).toEqual({ ...before, seq: before.seq + 1 });
    expect(isCorrectable(state, 'a')).toBe(false);
  });

  it('refuses a session.deleted that skips events, like any other event', () => {
    const state = threeSteps();
    const event: SessionEvent = { type: 'session.deleted', sessionId: SID, seq: 12, at: 'now' };
    expect(() => applyEvent(state, event)).toThrow(expect.objectContaining({ name: 'ReducerError', code: 'SEQ_GAP' }));
    expect(state.deleted).toBeUndefined();
  });

  it('adopts the session id of the first event when created without info', () => {
    const state = createSessionState();
    applyEvent(state, { type: 'session.status', sessionId: 'sess_9', seq: 1, at: 'now', status: 'running' });
    expect(state.session.sessionId).toBe('sess_9');
  });
});

describe('applyEvent refusals', () => {
  const refusals: Array<{ name: string; event: () => SessionEvent; code: ReducerError['code'] }> = [
    { name: 'an event of another session', event: () => ({ ...ev({ type: 'session.status', status: 'paused' }), sessionId: 'other' }), code: 'WRONG_SESSION' },
    { name: 'a step id that already exists', event: () => ev({ type: 'step.started', step: step('a', 'c', 3) }), code: 'DUPLICATE_STEP' },
    { name: 'a delta for a completed step', event: () => ev({ type: 'step.delta', stepId: 'a', text: 'more' }), code: 'STEP_NOT_STREAMING' },
    { name: 'a completion of an unknown step', event: () => ev({ type: 'step.completed', stepId: 'zz', content: '' }), code: 'UNKNOWN_STEP' },
    { name: 'an invalidation naming an unknown step', event: () => ev({ type: 'steps.invalidated', stepIds: ['b', 'zz'], byStepId: 'a', revision: 1 }), code: 'UNKNOWN_STEP' },
    { name: 'a step started on the head with the wrong index', event: () => ev({ type: 'step.started', step: step('d', 'c', 7) }), code: 'NOT_ON_CHAIN' },
    { name: 'a first step started under a non-empty chain', event: () => ev({ type: 'step.started', step: step('d', null, 0) }), code: 'NOT_ON_CHAIN' },
    {
      name: 'a correction whose parent is not the chain step before it',
      event: () => ev({ type: 'step.corrected', step: { ...step('x', 'b', 1), status: 'corrected', correctionOf: 'b' }, revision: 1 }),
      code: 'NOT_ON_CHAIN',
    },
    {
      name: 'a correction of a step that is not at its index on the chain',
      event: () => ev({ type: 'step.corrected', step: { ...step('x', 'a', 1), status: 'corrected', correctionOf: 'c' }, revision: 1 }),
      code: 'NOT_ON_CHAIN',
    },
    {
      name: 'a first-step correction with a non-zero index',
      event: () => ev({ type: 'step.corrected', step: { ...step('x', null, 2), status: 'corrected', correctionOf: 'c' }, revision: 1 }),
      code: 'NOT_ON_CHAIN',
    },
    {
      name: 'a correction past the end of the chain',
      event: () => ev({ type: 'step.corrected', step: { ...step('x', 'c', 3), status: 'corrected' }, revision: 1 }),
      code: 'NOT_ON_CHAIN',
    },
    {
      name: 'a correction of an unknown step',
      event: () => ev({ type: 'step.corrected', step: { ...step('x', 'a', 1), status: 'corrected', correctionOf: 'zz' }, revision: 1 }),
      code: 'UNKNOWN_STEP',
    },
  ];

  for (const { name, event, code } of refusals) {
    it(`refuses ${name} with ${code} and leaves the state unchanged`, () => {
      const state = threeSteps();
      const before = structuredClone(state);
      const bad = event();
      expect(() => applyEvent(state, bad)).toThrow(expect.objectContaining({ name: 'ReducerError', code }));
      expect(state).toEqual(before);
    });
  }

  it('explains a seq gap with the missing range', () => {
    const state = threeSteps();
    const event: SessionEvent = { type: 'session.status', sessionId: SID, seq: 14, at: 'now', status: 'paused' };
    expect(() => applyEvent(state, event)).toThrow('Expected seq 11 but got 14: events 11–13 are missing.');
  });
});

describe('state helpers', () => {
  it('allows correcting only chain steps that are not invalidated, in a session that is not cancelled', () => {
    const state = correctB(threeSteps());
    expect(isCorrectable(state, 'a')).toBe(true);
    expect(isCorrectable(state, 'b2')).toBe(true);
    expect(isCorrectable(state, 'b')).toBe(false);
    expect(isCorrectable(state, 'c')).toBe(false);
    expect(isCorrectable(state, 'missing')).toBe(false);
    applyEvent(state, ev({ type: 'session.status', status: 'cancelled' }));
    expect(isCorrectable(state, 'a')).toBe(false);
  });

  it('copies its input and output, so a snapshot and the state never share steps', () => {
    const { info, events } = buildSession([{ kind: 'start', stepKind: 'thought' }, { kind: 'delta', text: 'hi' }]);
    const snapshot = toSnapshot(applyEvents(createSessionState(info), events));
    const state = createSessionState(snapshot);
    state.steps.get('st_1')!.content += ' there';
    state.chain.push('x');
    expect(snapshot.steps[0]?.content).toBe('hi');
    expect(snapshot.chain).toEqual(['st_1']);
    expect(toSnapshot(state).steps[0]).not.toBe(state.steps.get('st_1'));
  });

  it('rebuilds the children index from a snapshot in creation order', () => {
    const state = correctB(threeSteps());
    const rebuilt = createSessionState(toSnapshot(state));
    expect(rebuilt.children).toEqual(state.children);
    expect(rebuilt.children.get('a')).toEqual(['b', 'b2']);
  });
});
