import { createContext } from 'svelte';

/**
 * A shared, coarse "now" for relative times and elapsed clocks: one timer for the whole page,
 * and only the labels that read `now` re-render when it ticks.
 */
export class Clock {
  #now = $state(Date.now());
  #timer: ReturnType<typeof setInterval> | null = null;

  /** The time of the latest tick (epoch ms). */
  get now(): number {
    return this.#now;
  }

  /** Tick every `intervalMs` until stopped. */
  start(intervalMs = 1000): void {
    this.stop();
    this.#now = Date.now();
    this.#timer = setInterval(() => {
      this.#now = Date.now();
    }, intervalMs);
  }

  stop(): void {
    if (this.#timer !== null) clearInterval(this.#timer);
    this.#timer = null;
  }
}

/** `useClock()` reads the page clock that the root layout gave every component with `provideClock()`. */
export const [useClock, provideClock] = createContext<Clock>();
