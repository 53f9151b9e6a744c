import { describe, expect, it } from 'vitest';
import { StepLinkArrival, linkedStepOf } from '$lib/session-page/step-link.js';

describe('a link to one step of a session', () => {
  it('reads ?step= from the address', () => {
    expect(linkedStepOf(new URL('http://x/sessions/s1?step=abc'))).toBe('abc');
    expect(linkedStepOf(new URL('http://x/sessions/s1?step='))).toBeUndefined();
    expect(linkedStepOf(new URL('http://x/sessions/s1'))).toBeUndefined();
  });

  it('reveals the step with the focus once the chain is ready, once per step, after it stopped following the newest', () => {
    const calls: string[] = [];
    const arrival = new StepLinkArrival(
      {
        reveal: async (stepId, options) => {
          calls.push(`reveal ${stepId} focus=${options?.focus}`);
          return null;
        },
      },
      () => calls.push('stop following'),
    );
    arrival.follow('abc', false);
    expect(calls).toEqual([]);
    arrival.follow('abc', true);
    arrival.follow('abc', true);
    expect(calls).toEqual(['stop following', 'reveal abc focus=true']);
    arrival.follow('def', true);
    expect(calls.slice(2)).toEqual(['stop following', 'reveal def focus=true']);
    arrival.follow(undefined, true);
    expect(calls).toHaveLength(4);
  });
});
