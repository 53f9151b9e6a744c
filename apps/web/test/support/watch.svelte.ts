import { flushSync } from 'svelte';

/**
 * Run `read` in an effect and count how often it re-runs: the number of times the state it
 * reads was written. Used to prove that an update leaves other steps untouched.
 */
export function watchRuns(read: () => void): { runs: () => number; stop: () => void } {
  let runs = 0;
  const stop = $effect.root(() => {
    $effect(() => {
      read();
      runs += 1;
    });
  });
  flushSync();
  return { runs: () => runs, stop };
}
