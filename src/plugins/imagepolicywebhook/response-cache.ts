// Upstream's LRUExpireCache of backend answers: at most 1024 entries, the least recently used
// dropped first, each entry kept for its own TTL (the allow TTL for an allowed image set, the deny
// TTL for a denied one). Only answers are cached, never failures.
import type { Clock } from '../../ports/clock.ts';
import type { ImageReviewStatus } from './image-review.ts';

/** Upstream's cache size. */
export const responseCacheSize = 1024;

export class ResponseCache {
  readonly #clock: Clock;
  readonly #size: number;
  readonly #entries = new Map<string, { status: ImageReviewStatus; expiresAt: number }>();

  constructor(clock: Clock, size = responseCacheSize) {
    this.#clock = clock;
    this.#size = size;
  }

  get size(): number {
    return this.#entries.size;
  }

  get(key: string): ImageReviewStatus | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    this.#entries.delete(key);
    if (this.#clock.now() > entry.expiresAt) return undefined;
    // Map order is the recency order: a hit moves to the back.
    this.#entries.set(key, entry);
    return entry.status;
  }

  add(key: string, status: ImageReviewStatus, ttlMs: number): void {
    // A TTL of 0 (turned off) would expire at once.
    if (ttlMs <= 0) return;
    this.#entries.delete(key);
    this.#entries.set(key, { status, expiresAt: this.#clock.now() + ttlMs });
    if (this.#entries.size > this.#size) this.#entries.delete(this.#entries.keys().next().value as string);
  }
}
