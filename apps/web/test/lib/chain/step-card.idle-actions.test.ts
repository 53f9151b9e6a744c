import { flushSync } from 'svelte';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { later, MAX_WAIT_MS } from '$lib/chain/idle-queue.js';
import { createHarness } from '../../support/chain-harness.js';
import { useStepCards } from '../../support/step-cards.js';

const { render } = useStepCards();

interface Deadline {
  didTimeout: boolean;
  timeRemaining(): number;
}

/** A browser's idle clock the test runs by hand: each pending callback, with as much idle time as it is given. */
function installIdleClock() {
  const pending: Array<{ callback: (deadline: Deadline) => void; timeout?: number }> = [];
  const clock = globalThis as unknown as { requestIdleCallback?: unknown };
  clock.requestIdleCallback = (callback: (deadline: Deadline) => void, options?: { timeout: number }) => {
    pending.push({ callback, ...(options ? { timeout: options.timeout } : {}) });
    return pending.length;
  };
  const run = (deadline: Deadline) => {
    const now = pending.splice(0);
    for (const { callback } of now) callback(deadline);
    flushSync();
  };
  return {
    pending,
    /** An idle period of `ms` milliseconds (each task is taken to cost none). */
    idle: (ms = 50) => run({ didTimeout: false, timeRemaining: () => ms }),
    /** The wait ran out with no idle time at all. */
    timeout: () => run({ didTimeout: true, timeRemaining: () => 0 }),
    uninstall: () => delete clock.requestIdleCallback,
  };
}

describe('StepCard: the hover actions are drawn in idle time', () => {
  let clock: ReturnType<typeof installIdleClock>;
  beforeEach(() => {
    clock = installIdleClock();
  });
  afterEach(() => {
    clock.idle(); // nothing left queued for the next test
    clock.uninstall();
  });

  function completedStep() {
    const harness = createHarness();
    const stepId = harness.log.start('thought');
    harness.log.delta(stepId, 'Check the units.');
    harness.log.complete(stepId);
    harness.deliver();
    return { harness, stepId };
  }

  it('draws the card without its actions, then adds them in the next idle period', () => {
    const { harness, stepId } = completedStep();
    const { article } = render(harness, stepId);
    expect(article.textContent).toContain('Check the units.');
    expect(article.querySelector('[data-action="correct"]')).toBeNull();
    expect(article.querySelector('.actions')).not.toBeNull();
    expect(clock.pending[0]?.timeout).toBe(MAX_WAIT_MS);

    clock.idle();
    expect(article.querySelector('[data-action="correct"]')).not.toBeNull();
    expect(article.querySelector('[data-action="more"]')).not.toBeNull();
  });

  it('draws them at once when the pointer or the focus comes to the card', () => {
    const first = completedStep();
    const pointed = render(first.harness, first.stepId).article;
    pointed.dispatchEvent(new PointerEvent('pointerenter'));
    flushSync();
    expect(pointed.querySelector('[data-action="correct"]')).not.toBeNull();

    const second = completedStep();
    const focused = render(second.harness, second.stepId).article;
    focused.focus();
    flushSync();
    expect(focused.querySelector('[data-action="correct"]')).not.toBeNull();
  });

  it('with no idle time at all, still draws a few each time the wait runs out', () => {
    const drawn: number[] = [];
    for (let task = 0; task < 7; task++) later(() => drawn.push(task));
    clock.timeout();
    expect(drawn).toEqual([0, 1, 2]);
    clock.timeout();
    clock.timeout();
    expect(drawn).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(clock.pending).toHaveLength(0);
  });

  it('stops when the idle period runs short and goes on in the next one, in order', () => {
    const drawn: number[] = [];
    for (let task = 0; task < 4; task++) later(() => drawn.push(task));
    clock.idle(0.5);
    expect(drawn).toEqual([0]);
    clock.idle();
    expect(drawn).toEqual([0, 1, 2, 3]);
  });

  it('keeps one idle callback pending: a task that queues another adds it to the same queue', () => {
    const drawn: string[] = [];
    later(() => {
      drawn.push('first');
      later(() => drawn.push('queued by the first'));
    });
    expect(clock.pending).toHaveLength(1);
    clock.idle(0.5);
    expect(drawn).toEqual(['first']);
    expect(clock.pending).toHaveLength(1);
    clock.idle();
    expect(drawn).toEqual(['first', 'queued by the first']);
    expect(clock.pending).toHaveLength(0);
  });

  it('drops the task of a card unmounted before it was drawn', () => {
    const drawn: string[] = [];
    const cancel = later(() => drawn.push('gone'));
    later(() => drawn.push('kept'));
    cancel();
    clock.idle();
    expect(drawn).toEqual(['kept']);
  });

  it('runs at once where the browser has no idle clock', () => {
    clock.uninstall();
    const drawn: string[] = [];
    later(() => drawn.push('now'));
    expect(drawn).toEqual(['now']);
    const { harness, stepId } = completedStep();
    expect(render(harness, stepId).article.querySelector('[data-action="correct"]')).not.toBeNull();
  });
});
