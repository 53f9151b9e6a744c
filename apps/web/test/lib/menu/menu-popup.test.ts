import { describe, expect, it } from 'vitest';
import { menuMove } from '../../../src/lib/menu/menu-popup.svelte.js';

describe('menuMove', () => {
  it('wraps ↑ and ↓ through the items', () => {
    expect(menuMove('ArrowDown', 2, 3)).toBe(0);
    expect(menuMove('ArrowUp', 0, 3)).toBe(2);
    expect(menuMove('ArrowDown', -1, 3)).toBe(0);
  });

  it('jumps to the ends with Home and End', () => {
    expect(menuMove('Home', 1, 3)).toBe(0);
    expect(menuMove('End', 0, 3)).toBe(2);
  });

  it('moves nowhere on other keys or in an empty menu', () => {
    expect(menuMove('a', 0, 3)).toBeUndefined();
    expect(menuMove('ArrowDown', -1, 0)).toBeUndefined();
  });
});
