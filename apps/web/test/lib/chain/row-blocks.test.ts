import { describe, expect, it } from 'vitest';
import type { ChainRow } from '$lib/chain/chain-rows.js';
import { rowBlocks } from '$lib/chain/row-blocks.js';

const rowsOf = (count: number, from = 0): ChainRow[] =>
  Array.from({ length: count }, (_, i) => ({ type: 'step', key: `s${from + i}`, stepId: `s${from + i}`, readOnly: false }));

describe('rowBlocks', () => {
  it('cuts the rows into blocks of the given size, the last one shorter', () => {
    const blocks = rowBlocks(rowsOf(10), [], 4);
    expect(blocks.map((block) => block.map((row) => row.key))).toEqual([
      ['s0', 's1', 's2', 's3'],
      ['s4', 's5', 's6', 's7'],
      ['s8', 's9'],
    ]);
  });

  it('keeps every block whose rows did not change, so a growing chain changes only its last block', () => {
    const rows = rowsOf(2_000);
    const before = rowBlocks(rows, [], 32);
    const after = rowBlocks([...rows, ...rowsOf(1, 2_000)], before, 32);
    expect(after).toHaveLength(before.length);
    expect(after.slice(0, -1).every((block, b) => block === before[b])).toBe(true);
    expect(after.at(-1)).not.toBe(before.at(-1));
    expect(after.at(-1)?.at(-1)?.key).toBe('s2000');
  });

  it('gives a new block when one of its rows is a new object', () => {
    const rows = rowsOf(8);
    const before = rowBlocks(rows, [], 4);
    const changed = [...rows];
    changed[5] = { ...rows[5]!, readOnly: true } as ChainRow;
    const after = rowBlocks(changed, before, 4);
    expect(after[0]).toBe(before[0]);
    expect(after[1]).not.toBe(before[1]);
  });

  it('lays out no block for no rows', () => {
    expect(rowBlocks([], [rowsOf(3)])).toEqual([]);
  });
});
