import { describe, expect, it } from 'vitest';
import { PauseGate } from '../../src/core/run/pause-gate.js';
import { abortError, pace } from '../../src/core/run/pace.js';
import { turns } from './support/harness.js';

function settledState(promise: Promise<unknown>): { value: 'pending' | 'resolved' | 'rejected'; reason?: unknown } {
  const state: { value: 'pending' | 'resolved' | 'rejected'; reason?: unknown } = { value: 'pending' };
  promise.then(
    () => {
      state.value = 'resolved';
    },
    (reason: unknown) => {
      state.value = 'rejected';
      state.reason = reason;
    },
  );
  return state;
}

describe('PauseGate', () => {
  it('lets writers through at once while open', async () => {
    const gate = new PauseGate();
    const state = settledState(gate.wait(new AbortController().signal));
    await turns(1);
    expect(state.value).toBe('resolved');
  });

  it('holds writers while closed and releases all of them on open', async () => {
    const gate = new PauseGate();
    gate.close();
    const signal = new AbortController().signal;
    const first = settledState(gate.wait(signal));
    const second = settledState(gate.wait(signal));
    await turns(5);
    expect([first.value, second.value]).toEqual(['pending', 'pending']);
    expect(gate.waiting).toBe(2);
    gate.open();
    await turns(1);
    expect([first.value, second.value]).toEqual(['resolved', 'resolved']);
    expect(gate.waiting).toBe(0);
  });

  it('rejects a held writer with the abort reason when its run is aborted', async () => {
    const gate = new PauseGate();
    gate.close();
    const controller = new AbortController();
    const held = settledState(gate.wait(controller.signal));
    controller.abort(abortError('a step was corrected'));
    await turns(1);
    expect(held.value).toBe('rejected');
    expect((held.reason as DOMException).name).toBe('AbortError');
    expect((held.reason as DOMException).message).toBe('The run was aborted: a step was corrected.');
    expect(gate.waiting).toBe(0);
  });

  it('rejects at once for a signal already aborted, even while open', async () => {
    const controller = new AbortController();
    controller.abort(abortError('cancelled'));
    const state = settledState(new PauseGate().wait(controller.signal));
    await turns(1);
    expect(state.value).toBe('rejected');
  });
});

describe('pace', () => {
  it('waits one event-loop turn when the delay is 0', async () => {
    const state = settledState(pace(0, new AbortController().signal));
    expect(state.value).toBe('pending');
    await turns(2);
    expect(state.value).toBe('resolved');
  });

  it('rejects a delay cut short by an abort', async () => {
    const controller = new AbortController();
    const state = settledState(pace(60_000, controller.signal));
    controller.abort(abortError('the server is shutting down'));
    await turns(1);
    expect(state.value).toBe('rejected');
    expect((state.reason as DOMException).name).toBe('AbortError');
  });

  it('rejects after the turn when aborted during a 0 delay', async () => {
    const controller = new AbortController();
    const state = settledState(pace(0, controller.signal));
    controller.abort(abortError('cancelled'));
    await turns(2);
    expect(state.value).toBe('rejected');
  });
});
