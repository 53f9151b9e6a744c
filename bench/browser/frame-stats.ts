/** How smoothly a page drew, from the timestamps of its animation frames. */
export interface FrameStats {
  frames: number;
  seconds: number;
  /** Frames per second over the window (frames drawn ÷ time). */
  fps: number;
  gapP50Ms: number;
  gapP99Ms: number;
  gapMaxMs: number;
  /** Gaps longer than two frames at 60 Hz (33 ms): frames the user saw dropped. */
  droppedGaps: number;
}

/** The nearest-rank percentile of sorted values. */
function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? 0;
}

/** Stats of consecutive requestAnimationFrame timestamps (ms), or undefined for fewer than two. */
export function frameStats(timestamps: readonly number[]): FrameStats | undefined {
  if (timestamps.length < 2) return undefined;
  const gaps: number[] = [];
  for (let i = 1; i < timestamps.length; i++) gaps.push((timestamps[i] ?? 0) - (timestamps[i - 1] ?? 0));
  const totalMs = (timestamps[timestamps.length - 1] ?? 0) - (timestamps[0] ?? 0);
  const sorted = [...gaps].sort((a, b) => a - b);
  return {
    frames: gaps.length,
    seconds: totalMs / 1_000,
    fps: totalMs > 0 ? (gaps.length * 1_000) / totalMs : 0,
    gapP50Ms: percentile(sorted, 50),
    gapP99Ms: percentile(sorted, 99),
    gapMaxMs: sorted[sorted.length - 1] ?? 0,
    droppedGaps: gaps.filter((gap) => gap > 33.4).length,
  };
}
