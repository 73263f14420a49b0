// A bounded cache whose entries expire: authorization answers go stale (roles change), so each
// entry carries its own time to live and the least recently used entry goes first when full.

export interface CacheEntry<V> {
  readonly value: V;
  readonly expiresAt: number;
  readonly ttlMs: number;
}

export class TtlCache<V> {
  readonly #entries = new Map<string, CacheEntry<V>>();
  readonly #maxEntries: number;

  constructor(maxEntries: number) {
    if (!(maxEntries > 0)) throw new Error(`TtlCache needs a positive size, got ${maxEntries}`);
    this.#maxEntries = maxEntries;
  }

  get size(): number {
    return this.#entries.size;
  }

  /** The live entry for key at time now, with its lifetime, or undefined (expired entries are dropped). */
  entry(key: string, now: number): CacheEntry<V> | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    this.#entries.delete(key);
    if (entry.expiresAt <= now) return undefined;
    this.#entries.set(key, entry);
    return entry;
  }

  set(key: string, value: V, ttlMs: number, now: number): void {
    this.#entries.delete(key);
    if (!(ttlMs > 0)) return;
    this.#entries.set(key, { value, expiresAt: now + ttlMs, ttlMs });
    while (this.#entries.size > this.#maxEntries) {
      const oldest = this.#entries.keys().next();
      if (oldest.done) break;
      this.#entries.delete(oldest.value);
    }
  }

  clear(): void {
    this.#entries.clear();
  }
}
