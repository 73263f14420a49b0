import { describe, expect, it } from 'vitest';
import { TtlCache } from './ttl-cache.ts';

describe('TtlCache', () => {
  it('serves an entry until its own TTL runs out', () => {
    const cache = new TtlCache<string>(10);
    cache.set('short', 'a', 100, 0);
    cache.set('long', 'b', 1_000, 0);
    expect(cache.entry('long', 10)).toMatchObject({ value: 'b', expiresAt: 1_000, ttlMs: 1_000 });
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

  it('keeps every pair apart as a key goes from one subkey to several and back', () => {
    const cache = new TtlCache<string>(10);
    cache.set('k', 'one', 100, 0, 'a');
    expect(cache.entry('k', 1, 'b')).toBeUndefined();
    expect(cache.entry('k', 1)).toBeUndefined();
    cache.set('k', 'two', 1_000, 0, 'b');
    cache.set('k', 'three', 1_000, 0);
    expect([cache.entry('k', 1, 'a')?.value, cache.entry('k', 1, 'b')?.value, cache.entry('k', 1)?.value]).toEqual(['one', 'two', 'three']);
    // 'a' expires; 'b' and '' stay.
    expect(cache.entry('k', 100, 'a')).toBeUndefined();
    expect([cache.entry('k', 100, 'b')?.value, cache.entry('k', 100)?.value]).toEqual(['two', 'three']);
    // Down to one subkey, then none, then a new first one.
    cache.set('k', 'gone', 0, 100, 'b');
    expect(cache.entry('k', 101, 'b')).toBeUndefined();
    expect(cache.entry('k', 101)?.value).toBe('three');
    cache.set('k', 'replaced', 1_000, 101);
    expect(cache.entry('k', 102)?.value).toBe('replaced');
    expect(cache.entry('k', 102, 'a')).toBeUndefined();
    cache.set('k', 'gone', 0, 102);
    expect(cache.size).toBe(0);
    cache.set('k', 'again', 1_000, 103, 'b');
    expect([cache.entry('k', 104, 'b')?.value, cache.entry('k', 104)?.value]).toEqual(['again', undefined]);
    expect(cache.size).toBe(1);
  });

  it("evicts a key's only entry and one of several alike, in recency order", () => {
    const cache = new TtlCache<number>(3);
    cache.set('single', 1, 1_000, 0);
    cache.set('multi', 2, 1_000, 0, 'x');
    cache.set('multi', 3, 1_000, 0, 'y');
    cache.set('new', 4, 1_000, 0); // evicts 'single'
    expect(cache.entry('single', 1)).toBeUndefined();
    cache.set('newer', 5, 1_000, 0); // evicts multi/x
    expect(cache.entry('multi', 1, 'x')).toBeUndefined();
    expect(cache.entry('multi', 1, 'y')?.value).toBe(3);
    expect([cache.entry('new', 1)?.value, cache.entry('newer', 1)?.value]).toEqual([4, 5]);
    expect(cache.size).toBe(3);
  });

  it('evicts the least recently used entries while the keys take more bytes than allowed', () => {
    const cache = new TtlCache<number>(1_000, 3 * (2 * 1000 + 160));
    for (let i = 0; i < 5; i++) cache.set(`${i}`.repeat(1000), i, 1_000, 0);
    expect(cache.size).toBe(3);
    expect(cache.bytes).toBe(3 * (2 * 1000 + 160));
    expect(cache.entry('0'.repeat(1000), 1)).toBeUndefined();
    expect(cache.entry('4'.repeat(1000), 1)?.value).toBe(4);
    cache.clear();
    expect(cache.bytes).toBe(0);
  });

  it('gives the bytes back when entries expire or are replaced', () => {
    const cache = new TtlCache<number>(10, 1_000_000);
    cache.set('a', 1, 10, 0, 'x');
    cache.set('a', 2, 10, 0, 'x');
    expect(cache.bytes).toBe(2 * 2 + 160);
    expect(cache.entry('a', 20, 'x')).toBeUndefined();
    expect(cache.bytes).toBe(0);
  });
});
