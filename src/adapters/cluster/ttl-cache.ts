// A bounded cache whose entries expire: authorization answers go stale (roles change), so each
// entry carries its own time to live, and when the cache is full the entry used least recently
// goes first.

export interface CacheEntry<V> {
  readonly value: V;
  readonly expiresAt: number;
  readonly ttlMs: number;
}

interface Slot<V> {
  readonly entry: CacheEntry<V>;
  /** The insertion count when the slot last went to the young end of the map. */
  stamp: number;
}

/**
 * The map's insertion order is the recency order: eviction takes from the old end. A hit moves
 * its entry to the young end only when the entry has drifted into the older half (more than half
 * the capacity inserted since it last moved), so a hot entry costs one map lookup instead of a
 * delete and a re-insert. Eviction order is unchanged where it matters: an entry used since the
 * last half-capacity of insertions still has at least the other half ahead of it.
 */
export class TtlCache<V> {
  readonly #slots = new Map<string, Slot<V>>();
  readonly #maxEntries: number;
  readonly #moveAfter: number;
  #inserted = 0;

  constructor(maxEntries: number) {
    if (!(maxEntries > 0)) throw new Error(`TtlCache needs a positive size, got ${maxEntries}`);
    this.#maxEntries = maxEntries;
    this.#moveAfter = Math.floor(maxEntries / 2);
  }

  get size(): number {
    return this.#slots.size;
  }

  /** The live entry for key at time now, with its lifetime, or undefined (expired entries are dropped). */
  entry(key: string, now: number): CacheEntry<V> | undefined {
    const slot = this.#slots.get(key);
    if (slot === undefined) return undefined;
    if (slot.entry.expiresAt <= now) {
      this.#slots.delete(key);
      return undefined;
    }
    if (this.#inserted - slot.stamp >= this.#moveAfter) {
      this.#slots.delete(key);
      slot.stamp = ++this.#inserted;
      this.#slots.set(key, slot);
    }
    return slot.entry;
  }

  set(key: string, value: V, ttlMs: number, now: number): void {
    this.#slots.delete(key);
    if (!(ttlMs > 0)) return;
    this.#slots.set(key, { entry: { value, expiresAt: now + ttlMs, ttlMs }, stamp: ++this.#inserted });
    while (this.#slots.size > this.#maxEntries) {
      const oldest = this.#slots.keys().next();
      if (oldest.done) break;
      this.#slots.delete(oldest.value);
    }
  }

  clear(): void {
    this.#slots.clear();
  }
}
