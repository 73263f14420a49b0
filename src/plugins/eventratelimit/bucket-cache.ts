// Where EventRateLimit keeps its buckets (upstream cache.go): the Server limit has one bucket for
// every event; the other limits one per key, in an LRU of cacheSize entries (k8s.io/utils/lru). An
// evicted key starts again with a full bucket when it comes back, as upstream's does.
import { createHash } from 'node:crypto';
import type { TokenBucket } from './token-bucket.ts';

export interface BucketCache {
  /** The bucket for this key, made (and the least recently used one evicted) when it is not there. */
  get(key: string): TokenBucket;
  /** How many buckets are held now. */
  readonly size: number;
}

/** One bucket whatever the key (upstream singleCache). */
export function singleBucket(bucket: TokenBucket): BucketCache {
  return { get: () => bucket, size: 1 };
}

/**
 * Keys longer than this are held by their SHA-256 instead: a SourceAndObject key is built from an
 * event's fields, so without it 4096 entries of megabyte-long keys would hold gigabytes.
 */
const longestKeyHeld = 256;

/** Least recently used buckets go first once `capacity` are held (upstream lruCache over lru.New). */
export class LruBucketCache implements BucketCache {
  readonly #capacity: number;
  readonly #create: () => TokenBucket;
  // A Map iterates in insertion order: re-inserting on each use keeps the oldest first.
  readonly #buckets = new Map<string, TokenBucket>();

  constructor(capacity: number, create: () => TokenBucket) {
    this.#capacity = capacity;
    this.#create = create;
  }

  get size(): number {
    return this.#buckets.size;
  }

  get(key: string): TokenBucket {
    const held = heldKey(key);
    const found = this.#buckets.get(held);
    if (found !== undefined) {
      this.#buckets.delete(held);
      this.#buckets.set(held, found);
      return found;
    }
    const bucket = this.#create();
    this.#buckets.set(held, bucket);
    if (this.#buckets.size > this.#capacity) {
      const oldest = this.#buckets.keys().next();
      if (oldest.done !== true) this.#buckets.delete(oldest.value);
    }
    return bucket;
  }
}

/** The key as held: itself, or its digest; the prefixes keep the two forms from ever meeting. */
function heldKey(key: string): string {
  if (key.length <= longestKeyHeld) return `=${key}`;
  return `#${createHash('sha256').update(key).digest('base64')}`;
}
