import { describe, expect, it } from 'vitest';
import { LIFECYCLE_ALLOWED_FROM, allowsLifecycle, applyEvent, createSessionState, isCorrectable, isOnChain, usableRequestId, type SessionStatus } from '../src/index.js';

const STATUSES: SessionStatus[] = ['running', 'paused', 'completed', 'failed', 'cancelled', 'interrupted'];

describe('lifecycle rules shared by the server and the UI', () => {
  it('allows pause only while running, resume while paused or interrupted, cancel while a run exists or may come back', () => {
    const table = Object.fromEntries(STATUSES.map((status) => [status, (['pause', 'resume', 'cancel'] as const).filter((request) => allowsLifecycle(request, status))]));
    expect(table).toEqual({
      running: ['pause', 'cancel'],
      paused: ['resume', 'cancel'],
      completed: [],
      failed: [],
      cancelled: [],
      interrupted: ['resume', 'cancel'],
    });
    expect(allowsLifecycle('cancel', undefined)).toBe(false);
    expect(Object.keys(LIFECYCLE_ALLOWED_FROM)).toEqual(['pause', 'resume', 'cancel']);
  });
});

describe('usableRequestId', () => {
  it('echoes ids of 1 to 64 characters and nothing else', () => {
    expect(usableRequestId('r1')).toBe('r1');
    expect(usableRequestId('x'.repeat(64))).toBe('x'.repeat(64));
    for (const bad of ['', 'x'.repeat(65), 7, null, undefined, {}]) expect(usableRequestId(bad)).toBeUndefined();
  });
});

describe('the on-chain rule', () => {
  it('holds for steps of the current chain and not for invalidated ones', () => {
    const at = '2026-12-01T00:00:00.000Z';
    const state = createSessionState({ sessionId: 's', task: 't', agent: 'demo', status: 'running', revision: 0, createdAt: at });
    applyEvent(state, { type: 'step.started', sessionId: 's', seq: 1, at, step: { stepId: 'a', parentId: null, index: 0, kind: 'thought', status: 'streaming', content: '', revision: 0 } });
    applyEvent(state, { type: 'step.completed', sessionId: 's', seq: 2, at, stepId: 'a', content: 'x' });
    applyEvent(state, { type: 'step.started', sessionId: 's', seq: 3, at, step: { stepId: 'b', parentId: 'a', index: 1, kind: 'final_answer', status: 'streaming', content: '', revision: 0 } });
    applyEvent(state, { type: 'step.completed', sessionId: 's', seq: 4, at, stepId: 'b', content: 'y' });
    expect(isOnChain(state, state.steps.get('b')!)).toBe(true);
    expect(isCorrectable(state, 'b')).toBe(true);
    applyEvent(state, { type: 'step.corrected', sessionId: 's', seq: 5, at, revision: 1, step: { stepId: 'a2', parentId: null, index: 0, kind: 'thought', status: 'corrected', content: 'z', revision: 1, correctionOf: 'a', correction: { previousContent: 'x', at } } });
    applyEvent(state, { type: 'steps.invalidated', sessionId: 's', seq: 6, at, stepIds: ['a', 'b'], byStepId: 'a2', revision: 1 });
    expect(isOnChain(state, state.steps.get('b')!)).toBe(false);
    expect(isCorrectable(state, 'a')).toBe(false);
    expect(isCorrectable(state, 'a2')).toBe(true);
  });
});
