import type { ChainRow } from './chain-rows.js';

/**
 * Rows per block. The browser tracks each block's distance to the viewport (to skip what is far
 * away) on every frame: a few dozen blocks cost it little where 2,000 rows would cost it most of
 * a frame, and a block of 32 rows is still only a few screens tall.
 */
export const ROWS_PER_BLOCK = 32;

/**
 * The rows cut into blocks of `size`. A block whose rows are the same objects as in `previous`
 * is `previous`'s block itself, so the view skips it: a chain growing at its tail changes only
 * its last block, however long it is.
 */
export function rowBlocks(rows: readonly ChainRow[], previous: readonly (readonly ChainRow[])[] = [], size = ROWS_PER_BLOCK): (readonly ChainRow[])[] {
  const blocks: (readonly ChainRow[])[] = [];
  for (let start = 0, b = 0; start < rows.length; start += size, b++) {
    const end = Math.min(start + size, rows.length);
    const before = previous[b];
    let same = before !== undefined && before.length === end - start;
    for (let i = start; same && i < end; i++) same = before?.[i - start] === rows[i];
    blocks.push(same && before ? before : rows.slice(start, end));
  }
  return blocks;
}
