import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ChainRow } from '$lib/chain/chain-rows.js';
import { VirtualChain } from '$lib/chain/virtual-rows/virtual-chain.svelte.js';

// `mount` with a list drawn by hand: happy-dom has no layout, so a drawn row is never on screen
// and every mount asks the list to scroll, as a move to a far row does in a browser.
function listWithRows(count: number): { chain: VirtualChain; scrolls: number[] } {
  const rows = Array.from({ length: count }, (_, index) => ({ key: `row-${index}` }) as unknown as ChainRow);
  const chain = new VirtualChain(() => rows);
  const list = document.createElement('div');
  const inner = list.appendChild(document.createElement('div'));
  for (let index = 0; index < count; index++) inner.appendChild(document.createElement('div')).dataset.row = String(index);
  chain.element = list;
  const scrolls: number[] = [];
  chain.scroller = { scrollToIndex: (index) => scrolls.push(index) };
  return { chain, scrolls };
}

describe('VirtualChain.mount', () => {
  afterEach(() => vi.unstubAllGlobals());

  it('resolves a frame after the scroll it asked for, once the list has had the scroll event', async () => {
    const frames: Array<() => void> = [];
    vi.stubGlobal('requestAnimationFrame', (callback: () => void) => frames.push(callback));
    const { chain, scrolls } = listWithRows(5);
    let resolved: HTMLElement | null | undefined;
    void chain.mount(3).then((element) => (resolved = element));
    await vi.waitFor(() => expect(scrolls).toEqual([3]));
    await Promise.resolve();
    expect(resolved).toBeUndefined();
    expect(frames).toHaveLength(1);
    frames.shift()!();
    await vi.waitFor(() => expect(resolved?.dataset.row).toBe('3'));
  });

  it('resolves without waiting for a frame when there is no list to scroll', async () => {
    vi.stubGlobal('requestAnimationFrame', () => 0);
    const { chain } = listWithRows(5);
    chain.scroller = undefined;
    expect((await chain.mount(2))?.dataset.row).toBe('2');
  });
});
