import { describe, expect, it } from 'vitest';
import { TtlCache } from './ttl-cache.ts';

describe('TtlCache', () => {
  it('serves an entry until its own TTL runs out', () => {
    const cache = new TtlCache<string>(10);
    cache.set('short', 'a', 100, 0);
    cache.set('long', 'b', 1_000, 0);
    expect(cache.get('short', 99)).toBe('a');
    expect(cache.get('short', 100)).toBeUndefined();
    expect(cache.get('long', 999)).toBe('b');
    expect(cache.get('long', 1_000)).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('evicts the least recently used entry when full', () => {
    const cache = new TtlCache<number>(2);
    cache.set('a', 1, 1_000, 0);
    cache.set('b', 2, 1_000, 0);
    expect(cache.get('a', 1)).toBe(1);
    cache.set('c', 3, 1_000, 1);
    expect(cache.get('b', 2)).toBeUndefined();
    expect(cache.get('a', 2)).toBe(1);
    expect(cache.get('c', 2)).toBe(3);
  });

  it('stores nothing for a zero TTL and replaces on set', () => {
    const cache = new TtlCache<number>(2);
    cache.set('a', 1, 1_000, 0);
    cache.set('a', 2, 0, 0);
    expect(cache.get('a', 0)).toBeUndefined();
    cache.set('a', 3, 10, 0);
    cache.set('a', 4, 10, 0);
    expect(cache.get('a', 5)).toBe(4);
  });
});
