import { flushSync } from 'svelte';

/**
 * Work a card can put off until the page has a moment to spare: the parts no one sees until
 * they point at the card or move to it (its hover actions). A chain that streams a new step
 * every other frame draws a card a frame; what waits here is drawn in the frames' idle time
 * instead of inside them (bench/README.md, "Cards drawn in two parts").
 *
 * One queue for the page, first in first out. A task waits at most `MAX_WAIT_MS`: a page with
 * no idle time at all still draws a few tasks each time that runs out, so nothing waits for ever.
 * Where the browser cannot say when it is idle (no `requestIdleCallback`: Safari, happy-dom),
 * `later` runs the task at once, as if nothing were put off.
 */

/** How long a task waits for idle time before it is run anyway. */
export const MAX_WAIT_MS = 300;
/** Tasks run when the wait ran out, before the queue waits again: a frame's worth of cards at most. */
const RUN_ON_TIMEOUT = 3;
/** Idle time left (ms) below which the queue stops and waits for the next idle period. */
const MIN_SLICE_MS = 1;

interface IdleDeadline {
  didTimeout: boolean;
  timeRemaining(): number;
}

interface IdleClock {
  requestIdleCallback(callback: (deadline: IdleDeadline) => void, options?: { timeout: number }): number;
}

const queue = new Set<() => void>();
let waiting = false;

/** The browser's idle clock, read at each call (a test installs its own). */
function idleClock(): IdleClock | undefined {
  const clock = globalThis as Partial<IdleClock>;
  return typeof clock.requestIdleCallback === 'function' ? (clock as IdleClock) : undefined;
}

/** Runs `task` in the page's idle time (at once where there is no idle clock); returns a function that drops it if it has not run. */
export function later(task: () => void): () => void {
  const clock = idleClock();
  if (!clock) {
    task();
    return () => {};
  }
  queue.add(task);
  if (!waiting) {
    waiting = true;
    clock.requestIdleCallback(runQueued, { timeout: MAX_WAIT_MS });
  }
  return () => queue.delete(task);
}

function runQueued(deadline: IdleDeadline): void {
  // `waiting` stays set while the tasks run: a card a task draws that queues its own part joins
  // this queue rather than asking the clock for a second callback.
  let ran = 0;
  for (const task of queue) {
    queue.delete(task);
    // Drawn now, not in one flush after the loop: the idle time left then counts what it cost.
    flushSync(task);
    ran += 1;
    if (deadline.didTimeout ? ran >= RUN_ON_TIMEOUT : deadline.timeRemaining() < MIN_SLICE_MS) break;
  }
  const clock = idleClock();
  waiting = queue.size > 0 && clock !== undefined;
  if (waiting) clock!.requestIdleCallback(runQueued, { timeout: MAX_WAIT_MS });
}

/** Whether `later` puts anything off here (a page with an idle clock). */
export function canPutOff(): boolean {
  return idleClock() !== undefined;
}
