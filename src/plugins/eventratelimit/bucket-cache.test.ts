// Upstream cache_test.go: TestSingleCache and TestLRUCache (every row, testdata/upstream-cases.ts);
// then the bound on what a long key holds.
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../test/support/clock.ts';
import { LruBucketCache, singleBucket } from './bucket-cache.ts';
import { lruCacheCases } from './testdata/upstream-cases.ts';
import { TokenBucket } from './token-bucket.ts';

const clock = new ManualClock();

describe('TestSingleCache', () => {
  it('returns its one bucket for every key', () => {
    const bucket = new TokenBucket(1, 1, clock);
    const cache = singleBucket(bucket);
    for (const key of ['', 'key1', 'key2']) expect(cache.get(key)).toBe(bucket);
  });
});

describe('TestLRUCache', () => {
  const made: TokenBucket[] = [];
  const cache = new LruBucketCache(2, () => {
    const bucket = new TokenBucket(made.length + 1, made.length + 1, clock);
    made.push(bucket);
    return bucket;
  });
  // The rows run in order over the one cache, as upstream's do.
  it.each(lruCacheCases)('$name', ({ key, expected }) => {
    expect(made.indexOf(cache.get(String(key)))).toBe(expected);
    expect(cache.size).toBeLessThanOrEqual(2);
  });
});

describe('long keys', () => {
  it('are told apart by their digest, and never meet a short key', () => {
    const cache = new LruBucketCache(10, () => new TokenBucket(1, 1, clock));
    const long = 'x'.repeat(100_000);
    expect(cache.get(long)).toBe(cache.get(`${long}`));
    expect(cache.get(`${long}y`)).not.toBe(cache.get(long));
    expect(cache.get('short')).not.toBe(cache.get(long));
    expect(cache.size).toBe(3);
  });
});
