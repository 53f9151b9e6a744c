import { afterEach, describe, expect, it, vi } from 'vitest';
import { abortError, pace } from '../../src/core/run/pace.js';
import { turns } from './support/harness.js';

afterEach(() => {
  vi.restoreAllMocks();
});

/** Outcomes of `promises` in the order they settle. */
function settleOrder(promises: Promise<void>[]): string[] {
  const order: string[] = [];
  promises.forEach((promise, index) =>
    promise.then(
      () => order.push(`${index} resolved`),
      () => order.push(`${index} rejected`),
    ),
  );
  return order;
}

describe('pace(0) for a burst of writes', () => {
  it('resumes every write a run issued in one turn once that turn is over, in the order issued', async () => {
    const signal = new AbortController().signal;
    const order = settleOrder(Array.from({ length: 5 }, () => pace(0, signal)));
    await Promise.resolve();
    expect(order).toEqual([]);
    await turns(2);
    expect(order).toEqual(['0 resolved', '1 resolved', '2 resolved', '3 resolved', '4 resolved']);
  });

  it('keeps runs apart: a run aborted during the turn has its writes rejected, the other run goes on', async () => {
    const stopped = new AbortController();
    const going = new AbortController();
    const stoppedOrder = settleOrder([pace(0, stopped.signal), pace(0, stopped.signal)]);
    const goingOrder = settleOrder([pace(0, going.signal), pace(0, going.signal)]);
    stopped.abort(abortError('corrected'));
    await turns(2);
    expect(stoppedOrder).toEqual(['0 rejected', '1 rejected']);
    expect(goingOrder).toEqual(['0 resolved', '1 resolved']);
  });

  it('costs one immediate per run and turn, however many of its writes wait', async () => {
    const immediates = vi.spyOn(globalThis, 'setImmediate');
    const first = new AbortController().signal;
    const second = new AbortController().signal;
    const writes = [...Array.from({ length: 512 }, () => pace(0, first)), ...Array.from({ length: 512 }, () => pace(0, second))];
    expect(immediates).toHaveBeenCalledTimes(2);
    immediates.mockRestore();
    await Promise.all(writes);
    // The next turn gets an immediate of its own.
    const next = vi.spyOn(globalThis, 'setImmediate');
    const later = [pace(0, first), pace(0, first)];
    expect(next).toHaveBeenCalledTimes(1);
    await Promise.all(later);
  });
});
