/**
 * Scripts run in the page, as plain JavaScript text: a function compiled by tsx would carry
 * helper calls (`__name`) the page does not have.
 *
 * The recorder keeps every animation frame's timestamp and the timeline's row count at that
 * frame. The timeline's rows come in blocks (lists of up to a few dozen rows): the count adds up
 * the blocks' childElementCount, so recording costs the page next to nothing.
 */
const COUNT_ROWS = `((container) => {
  let rows = 0;
  for (const block of container?.children ?? []) rows += block.childElementCount;
  return rows;
})`;
const ROWS_CONTAINER = `document.querySelector('.chain .rows')`;

export const START_RECORDING = `(() => {
  const container = ${ROWS_CONTAINER};
  const countRows = () => ${COUNT_ROWS}(container);
  const record = { times: [], rows: [], stopped: false };
  window.__benchFrames = record;
  const tick = (time) => {
    if (record.stopped) return;
    record.times.push(time);
    record.rows.push(countRows());
    requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
})()`;

export const STOP_RECORDING = `(() => {
  const record = window.__benchFrames;
  record.stopped = true;
  return { times: record.times, rows: record.rows };
})()`;

/** What the recorder saw. */
export interface FrameRecord {
  times: number[];
  rows: number[];
}

/** The rows the page's timeline shows now (an expression). */
export const TIMELINE_ROWS = `${COUNT_ROWS}(${ROWS_CONTAINER})`;

/**
 * The frames of the stream: from the frame before the chain first grew to the frame it reached
 * its final length, so the quiet wait before the stream and after it is left out.
 */
export function streamWindow(record: FrameRecord): number[] {
  const { times, rows } = record;
  const first = rows[0] ?? 0;
  const last = rows[rows.length - 1] ?? 0;
  const start = rows.findIndex((count) => count > first);
  const end = rows.indexOf(last);
  if (start < 0 || end < start) return [];
  return times.slice(Math.max(0, start - 1), end + 1);
}
