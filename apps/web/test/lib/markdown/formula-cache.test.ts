import { describe, expect, it } from 'vitest';
import { FormulaCache } from '$lib/markdown/math/formula-cache.js';

describe('FormulaCache', () => {
  it('makes a value once and serves it from the cache after', () => {
    const cache = new FormulaCache<string>(2);
    let made = 0;
    const make = () => `v${++made}`;
    expect(cache.getOrMake('a', make)).toBe('v1');
    expect(cache.getOrMake('a', make)).toBe('v1');
    expect(made).toBe(1);
  });

  it('drops the least recently used entry beyond its capacity', () => {
    const cache = new FormulaCache<string>(2);
    cache.getOrMake('a', () => 'A');
    cache.getOrMake('b', () => 'B');
    cache.getOrMake('a', () => 'A again');
    cache.getOrMake('c', () => 'C');
    expect(cache.size).toBe(2);
    expect(cache.getOrMake('a', () => 'A remade')).toBe('A');
    expect(cache.getOrMake('b', () => 'B remade')).toBe('B remade');
  });
});
