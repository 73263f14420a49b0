import { describe, expect, it } from 'vitest';
import { TtlCache } from './ttl-cache.ts';

describe('TtlCache', () => {
  it('serves an entry until its own TTL runs out', () => {
    const cache = new TtlCache<string>(10);
    cache.set('short', 'a', 100, 0);
    cache.set('long', 'b', 1_000, 0);
    expect(cache.entry('long', 10)).toEqual({ value: 'b', expiresAt: 1_000, ttlMs: 1_000 });
    expect(cache.entry('short', 99)?.value).toBe('a');
    expect(cache.entry('short', 100)?.value).toBeUndefined();
    expect(cache.entry('long', 999)?.value).toBe('b');
    expect(cache.entry('long', 1_000)?.value).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('evicts the least recently used entry when full', () => {
    const cache = new TtlCache<number>(2);
    cache.set('a', 1, 1_000, 0);
    cache.set('b', 2, 1_000, 0);
    expect(cache.entry('a', 1)?.value).toBe(1);
    cache.set('c', 3, 1_000, 1);
    expect(cache.entry('b', 2)?.value).toBeUndefined();
    expect(cache.entry('a', 2)?.value).toBe(1);
    expect(cache.entry('c', 2)?.value).toBe(3);
  });

  it('keeps an entry in use while a stream of new ones passes through', () => {
    const cache = new TtlCache<number>(4);
    cache.set('hot', 0, 1_000, 0);
    for (let i = 0; i < 20; i++) {
      cache.set(`cold-${i}`, i, 1_000, 0);
      expect(cache.entry('hot', 1)?.value, `after cold-${i}`).toBe(0);
    }
    expect(cache.size).toBe(4);
    expect(cache.entry('cold-15', 1)).toBeUndefined();
    expect(cache.entry('cold-19', 1)?.value).toBe(19);
  });

  it('stores nothing for a zero TTL and replaces on set', () => {
    const cache = new TtlCache<number>(2);
    cache.set('a', 1, 1_000, 0);
    cache.set('a', 2, 0, 0);
    expect(cache.entry('a', 0)?.value).toBeUndefined();
    cache.set('a', 3, 10, 0);
    cache.set('a', 4, 10, 0);
    expect(cache.entry('a', 5)?.value).toBe(4);
  });

  it('finds an entry by key and subkey, each pair on its own, and evicts pairs in recency order', () => {
    const cache = new TtlCache<string>(3);
    cache.set('family-1', 'a', 1_000, 0, 'web');
    cache.set('family-1', 'b', 1_000, 0, 'db');
    cache.set('family-2', 'c', 1_000, 0, 'web');
    expect(cache.entry('family-1', 1, 'web')?.value).toBe('a');
    expect(cache.entry('family-1', 1, 'db')?.value).toBe('b');
    expect(cache.entry('family-2', 1, 'web')?.value).toBe('c');
    expect(cache.entry('family-2', 1, 'db')).toBeUndefined();
    expect(cache.entry('family-1', 1)).toBeUndefined();
    cache.set('family-3', 'd', 1_000, 1);
    expect(cache.size).toBe(3);
    expect(cache.entry('family-1', 2, 'web')).toBeUndefined();
    expect(cache.entry('family-3', 2)?.value).toBe('d');
    // An entry dropped and set again under the same pair is found again.
    cache.set('family-1', 'e', 1_000, 2, 'web');
    expect(cache.entry('family-1', 3, 'web')?.value).toBe('e');
    expect(cache.size).toBe(3);
  });
});
