/** Times `run` once per round and gives the median in µs, as text: for measures printed by tests, never asserted. */
export function medianMicros(rounds: number, run: (round: number) => void, before?: (round: number) => void): string {
  const samples: number[] = [];
  for (let round = 0; round < rounds; round++) {
    before?.(round);
    const started = performance.now();
    run(round);
    samples.push(performance.now() - started);
  }
  samples.sort((a, b) => a - b);
  return ((samples[samples.length >> 1] ?? 0) * 1000).toFixed(1);
}
