import { describe, expect, it } from 'vitest';
import {
  ReducerError,
  allowsMessage,
  applyEvent,
  applyEvents,
  createSessionState,
  toSnapshot,
  type SessionEvent,
  type SessionState,
  type Step,
} from '../src/index.js';
import { eventBuilder, stepOf } from './support/event-builders.js';
import { sessionInfo } from './support/legal-session.js';

const SID = 'sess_c';
const { ev, reset, rewind } = eventBuilder(SID);

const step = stepOf;

function answered(): SessionState {
  reset();
  return applyEvents(createSessionState(sessionInfo(SID)), [
    ev({ type: 'session.status', status: 'running' }),
    ev({ type: 'step.started', step: step('a', null, 0, 'thought') }),
    ev({ type: 'step.completed', stepId: 'a', content: 'Think.' }),
    ev({ type: 'step.started', step: step('b', 'a', 1, 'final_answer') }),
    ev({ type: 'step.completed', stepId: 'b', content: '36' }),
    ev({ type: 'session.status', status: 'completed' }),
  ]);
}

describe('conversations in the reducer', () => {
  it('a user message is a step on the chain like any other', () => {
    const state = answered();
    applyEvent(state, ev({ type: 'step.started', step: step('m', 'b', 2, 'user_message') }));
    applyEvent(state, ev({ type: 'step.completed', stepId: 'm', content: 'Add 10 to that.' }));
    expect(state.chain).toEqual(['a', 'b', 'm']);
    expect(state.steps.get('m')).toMatchObject({ kind: 'user_message', status: 'completed', content: 'Add 10 to that.' });
  });

  it('keeps queued messages in order until their step starts, and snapshots carry them', () => {
    const state = answered();
    applyEvent(state, ev({ type: 'message.queued', stepId: 'q1', text: 'first', mode: 'queue' }));
    applyEvent(state, ev({ type: 'message.queued', stepId: 'q2', text: 'second', mode: 'steer' }));
    expect(state.queued.map((message) => message.stepId)).toEqual(['q1', 'q2']);
    const copy = createSessionState(toSnapshot(state));
    expect(copy.queued).toEqual(state.queued);
    expect(() => applyEvent(state, ev({ type: 'message.queued', stepId: 'q1', text: 'again', mode: 'queue' }))).toThrow(ReducerError);
    rewind();
    applyEvent(state, ev({ type: 'step.started', step: step('q1', 'b', 2, 'user_message') }));
    expect(state.queued.map((message) => message.stepId)).toEqual(['q2']);
    expect(toSnapshot(createSessionState(sessionInfo(SID))).queued).toBeUndefined();
  });

  it("copies a fork's chain at once, and refuses copies that do not continue the head", () => {
    reset();
    const state = createSessionState(sessionInfo(SID));
    applyEvent(state, ev({ type: 'session.status', status: 'idle' }));
    const origin = { sessionId: 'src', stepId: 'x2' };
    const copies = [
      { ...step('c1', null, 0, 'thought', 'completed', 'T'), copiedFrom: { sessionId: 'src', stepId: 'x1' } },
      { ...step('c2', 'c1', 1, 'action', 'corrected', 'A'), copiedFrom: origin, correction: { previousContent: 'a', at: 'then' } },
    ];
    const bad = { type: 'steps.copied', steps: [copies[1]], from: origin } as const;
    expect(() => applyEvent(state, ev(bad))).toThrow(/NOT_ON_CHAIN|starts under/);
    rewind();
    applyEvent(state, ev({ type: 'steps.copied', steps: copies, from: origin }));
    expect(state.chain).toEqual(['c1', 'c2']);
    expect(state.steps.get('c2')).toMatchObject({ status: 'corrected', copiedFrom: origin });
    expect(state.session.revision).toBe(0);
    applyEvent(state, ev({ type: 'steps.copied', steps: [{ ...step('c3', 'c2', 2, 'thought', 'completed', 'x') }], from: origin, revision: 4 }));
    expect(state.session.revision).toBe(4);
  });

  it('tolerates step kinds and statuses it does not know (a newer server)', () => {
    const state = answered();
    applyEvent(state, ev({ type: 'step.started', step: step('z', 'b', 2, 'hologram') }));
    applyEvent(state, ev({ type: 'step.completed', stepId: 'z', content: '?' }));
    applyEvent(state, ev({ type: 'session.status', status: 'dreaming' as 'running' }));
    expect(state.steps.get('z')?.kind).toBe('hologram');
    expect(state.session.status).toBe('dreaming');
  });

  it('takes a message in every status but waiting', () => {
    for (const status of ['running', 'paused', 'idle', 'completed', 'failed', 'cancelled', 'interrupted'] as const) expect(allowsMessage(status)).toBe(true);
    expect(allowsMessage('waiting')).toBe(false);
  });
});
