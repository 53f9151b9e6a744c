import { getContext, setContext } from 'svelte';

/**
 * A shared, coarse "now" for relative times and elapsed clocks: one timer for the whole page,
 * and only the labels that read `now` re-render when it ticks.
 */
export class Clock {
  now = $state(Date.now());
  #timer: ReturnType<typeof setInterval> | null = null;

  /** Tick every `intervalMs` until stopped. */
  start(intervalMs = 1000): void {
    this.stop();
    this.now = Date.now();
    this.#timer = setInterval(() => {
      this.now = Date.now();
    }, intervalMs);
  }

  stop(): void {
    if (this.#timer !== null) clearInterval(this.#timer);
    this.#timer = null;
  }
}

/** The context key of the page clock (exported so tests can mount a component with it). */
export const CLOCK_KEY = Symbol('interthought.clock');

export function provideClock(clock: Clock): Clock {
  return setContext(CLOCK_KEY, clock);
}

export function useClock(): Clock {
  const clock = getContext<Clock | undefined>(CLOCK_KEY);
  if (!clock) throw new Error('useClock() needs a Clock provided by a parent (provideClock).');
  return clock;
}
