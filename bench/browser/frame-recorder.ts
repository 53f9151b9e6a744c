/**
 * Scripts run in the page, as plain JavaScript text: a function compiled by tsx would carry
 * helper calls (`__name`) the page does not have.
 *
 * The recorder keeps every animation frame's timestamp and how many steps the chain showed at
 * that frame: the timeline's data-steps (folded steps included), read in O(1), so recording
 * costs the page next to nothing.
 */
export const STEPS_SHOWN = `Number(document.querySelector('.chain .rows')?.getAttribute('data-steps') ?? 0)`;

export const START_RECORDING = `(() => {
  const record = { times: [], steps: [], stopped: false };
  window.__benchFrames = record;
  const rows = document.querySelector('.chain .rows');
  const tick = (time) => {
    if (record.stopped) return;
    record.times.push(time);
    record.steps.push(Number(rows?.getAttribute('data-steps') ?? 0));
    requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
})()`;

export const STOP_RECORDING = `(() => {
  const record = window.__benchFrames;
  record.stopped = true;
  return { times: record.times, steps: record.steps };
})()`;

/** What the recorder saw. */
export interface FrameRecord {
  times: number[];
  steps: number[];
}


/**
 * The frames of the stream: from the frame before the chain first grew to the frame it reached
 * its final length, so the quiet wait before the stream and after it is left out.
 */
export function streamWindow(record: FrameRecord): number[] {
  const { times, steps } = record;
  const first = steps[0] ?? 0;
  const last = steps[steps.length - 1] ?? 0;
  const start = steps.findIndex((count) => count > first);
  const end = steps.indexOf(last);
  if (start < 0 || end < start) return [];
  return times.slice(Math.max(0, start - 1), end + 1);
}
